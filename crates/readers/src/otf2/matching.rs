//! Pairs MPI sends with receives, and groups per-location collective records into operation instances.
//!
//! Point-to-point: MPI guarantees messages between one sender and one receiver on one communicator with one
//! tag arrive in the order they were sent (non-overtaking), so the k-th send of a (sender, receiver,
//! communicator, tag) channel matches the k-th receive of the same channel. Non-blocking sends cancelled
//! through their request id never left and take no part. Collectives: every member of a communicator calls
//! its collectives in the same order, so the k-th collective on a communicator at each location is one
//! operation instance.
//!
//! This module knows no file format; it must not decode bytes.

use rustc_hash::FxHashMap as HashMap;
use weft_model::{LocationId, RegionId};

/// A send as the sender's event file recorded it (time in absolute ns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Send {
    pub sender: LocationId,
    pub receiver: LocationId,
    pub comm: u32,
    pub tag: u32,
    pub length: u64,
    pub time_ns: i64,
    pub cancelled: bool,
}

/// A completed receive as the receiver's event file recorded it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recv {
    pub sender: LocationId,
    pub receiver: LocationId,
    pub comm: u32,
    pub tag: u32,
    pub length: u64,
    pub time_ns: i64,
    /// When the receive was posted: the MPI_Irecv's request event, or `time_ns` for a blocking receive.
    pub posted_ns: i64,
}

/// A matched message: indexes into the send and receive lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Matched {
    pub send: usize,
    pub recv: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MessageMatch {
    pub matched: Vec<Matched>,
    pub unmatched_sends: usize,
    pub unmatched_recvs: usize,
    /// Matched pairs whose recorded lengths differ (a truncated receive buffer, or a broken trace).
    pub length_mismatches: usize,
}

/// Match sends to receives. Each list must be in per-location time order (file order).
pub fn match_messages(sends: &[Send], recvs: &[Recv]) -> MessageMatch {
    let mut matched = Vec::new();
    let Ok(counts) = match_each(sends, recvs, &mut |send, recv| -> Result<(), std::convert::Infallible> {
        matched.push(Matched { send, recv });
        Ok(())
    });
    MessageMatch {
        matched,
        unmatched_sends: counts.unmatched_sends,
        unmatched_recvs: counts.unmatched_recvs,
        length_mismatches: counts.length_mismatches,
    }
}

/// What [`match_each`] found besides the pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchCounts {
    pub unmatched_sends: usize,
    pub unmatched_recvs: usize,
    pub length_mismatches: usize,
}

/// [`match_messages`] handing each pair (send index, receive index) to `pair` as it is found, in receive
/// order, rather than listing them (a streamed index takes a million pairs without holding them twice).
/// `pair`'s first error stops the matching.
pub fn match_each<E>(
    sends: &[Send],
    recvs: &[Recv],
    pair: &mut dyn FnMut(usize, usize) -> Result<(), E>,
) -> Result<MatchCounts, E> {
    // Each channel's sends in order as one slice of a flat list (a counting sort by channel), not a queue
    // a channel: a trace of many tags has tens of thousands of channels, and the queues' allocations and
    // their table were most of the matching's time.
    let mut ids: HashMap<(LocationId, LocationId, u32, u32), usize> = HashMap::default();
    // The sends not cancelled, each with its channel.
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    for (i, s) in sends.iter().enumerate() {
        if s.cancelled {
            continue;
        }
        let fresh = ids.len();
        let c = *ids.entry((s.sender, s.receiver, s.comm, s.tag)).or_insert(fresh);
        if c == fresh {
            counts.push(0);
        }
        counts[c] += 1;
        kept.push((i, c));
    }
    // Channel `c`'s sends are `order[starts[c]..starts[c + 1]]`; `next[c]` the next one to take.
    let mut starts = Vec::with_capacity(counts.len() + 1);
    starts.push(0usize);
    for &n in &counts {
        starts.push(starts[starts.len() - 1] + n);
    }
    let taken_all = starts[counts.len()];
    let mut next = starts[..counts.len()].to_vec();
    let mut order = vec![0usize; taken_all];
    for (i, c) in kept {
        order[next[c]] = i;
        next[c] += 1;
    }
    next.copy_from_slice(&starts[..counts.len()]);
    let mut out = MatchCounts::default();
    let mut matched = 0usize;
    for (j, r) in recvs.iter().enumerate() {
        let channel = ids.get(&(r.sender, r.receiver, r.comm, r.tag)).copied();
        match channel.filter(|&c| next[c] < starts[c + 1]) {
            Some(c) => {
                let i = order[next[c]];
                next[c] += 1;
                matched += 1;
                if sends[i].length != r.length {
                    out.length_mismatches += 1;
                }
                pair(i, j)?;
            }
            None => out.unmatched_recvs += 1,
        }
    }
    out.unmatched_sends = taken_all - matched;
    Ok(out)
}

/// One location's part in a collective (begin to end), before grouping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollectivePart {
    pub location: LocationId,
    pub region: RegionId,
    pub comm: u32,
    pub op: u8,
    pub root: Option<LocationId>,
    pub begin_ns: i64,
    pub end_ns: i64,
    pub sent: u64,
    pub received: u64,
}

/// Operation instance for each part (dense ids from 0, in order of first appearance). Parts must be in
/// per-location time order.
pub fn group_collectives(parts: &[CollectivePart]) -> Vec<u32> {
    let mut group = Collectives::default();
    parts.iter().map(|p| group.operation(p)).collect()
}

/// [`group_collectives`] a part at a time (parts handed in the same order), for parts read back from a
/// spill.
#[derive(Default)]
pub struct Collectives {
    /// Per (location, communicator): the collectives seen there so far.
    seen: HashMap<(LocationId, u32), u32>,
    /// Per communicator: the instance of its k-th collective at k (`u32::MAX` until a location reaches it;
    /// each location's k-th follows its (k-1)-th, so the list grows by one at a time).
    instance: HashMap<u32, Vec<u32>>,
    instances: u32,
    /// The last part's (location, communicator) and its count's slot: consecutive parts of one location
    /// on one communicator skip the lookup.
    last: Option<((LocationId, u32), u32)>,
}

impl Collectives {
    /// The next part's operation instance.
    pub fn operation(&mut self, p: &CollectivePart) -> u32 {
        let key = (p.location, p.comm);
        let nth = match &mut self.last {
            Some((k, n)) if *k == key => {
                *n += 1;
                *n - 1
            }
            _ => {
                if let Some((k, n)) = self.last.take() {
                    self.seen.insert(k, n);
                }
                let n = self.seen.get(&key).copied().unwrap_or(0);
                self.last = Some((key, n + 1));
                n
            }
        };
        let list = self.instance.entry(p.comm).or_default();
        if list.len() <= nth as usize {
            list.resize(nth as usize + 1, u32::MAX);
        }
        let slot = &mut list[nth as usize];
        if *slot == u32::MAX {
            *slot = self.instances;
            self.instances += 1;
        }
        *slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send(s: u32, r: u32, tag: u32, t: i64) -> Send {
        Send { sender: LocationId(s), receiver: LocationId(r), comm: 0, tag, length: 8, time_ns: t, cancelled: false }
    }
    fn recv(s: u32, r: u32, tag: u32, t: i64) -> Recv {
        Recv { sender: LocationId(s), receiver: LocationId(r), comm: 0, tag, length: 8, time_ns: t, posted_ns: t }
    }

    /// `n` random sends among `locations` on `tags`, one in `cancelled` cancelled, one in `mismatched` of
    /// another length than its receive, one in `lost` without a receive.
    fn traffic(
        seed: u64,
        n: i64,
        (locations, tags): (u64, u64),
        (cancelled, mismatched, lost): (u64, u64, u64),
    ) -> (Vec<Send>, Vec<Recv>) {
        let mut rng = weft_samples::rng::XorShift(seed);
        let (mut sends, mut recvs) = (Vec::new(), Vec::new());
        for t in 0..n {
            let (s, r, tag) = (rng.below(locations) as u32, rng.below(locations) as u32, rng.below(tags) as u32);
            let mut m = send(s, r, tag, t);
            m.cancelled = rng.below(cancelled) == 0;
            m.length = 8 + (rng.below(mismatched) == 0) as u64;
            sends.push(m);
            if rng.below(lost) != 0 {
                recvs.push(recv(s, r, tag, t + 3));
            }
        }
        (sends, recvs)
    }

    #[test]
    fn fifo_per_channel_and_tags_kept_apart() {
        let sends = [send(0, 1, 1, 10), send(0, 1, 2, 20), send(0, 1, 1, 30)];
        // The receiver takes tag 2 first, then both tag-1 messages in order.
        let recvs = [recv(0, 1, 2, 25), recv(0, 1, 1, 31), recv(0, 1, 1, 40)];
        let m = match_messages(&sends, &recvs);
        assert_eq!(
            m.matched,
            vec![Matched { send: 1, recv: 0 }, Matched { send: 0, recv: 1 }, Matched { send: 2, recv: 2 }]
        );
        assert_eq!((m.unmatched_sends, m.unmatched_recvs), (0, 0));
    }

    #[test]
    fn cancelled_sends_and_orphans_are_counted() {
        let mut s = send(0, 1, 1, 10);
        s.cancelled = true;
        let m = match_messages(&[s, send(1, 0, 1, 5)], &[recv(0, 1, 1, 20)]);
        assert!(m.matched.is_empty());
        assert_eq!((m.unmatched_sends, m.unmatched_recvs), (1, 1));
    }

    #[test]
    fn a_pair_refused_stops_the_matching() {
        let sends = [send(0, 1, 1, 10), send(0, 1, 1, 20)];
        let recvs = [recv(0, 1, 1, 15), recv(0, 1, 1, 25)];
        let mut seen = 0;
        let r = match_each(&sends, &recvs, &mut |_, _| {
            seen += 1;
            Err("no room")
        });
        assert_eq!((r, seen), (Err("no room"), 1));
    }

    /// The channels' sends taken first in, first out, as a queue a channel would take them, on random
    /// traffic of many channels (a queue per channel is the oracle).
    #[test]
    fn each_channel_is_first_in_first_out() {
        let (sends, mut recvs) = traffic(0x2545_F491_4F6C_DD1D, 20_000, (9, 200), (60, 50, 25));
        // Receives in another order than the sends: by receiver (a location's file at a time).
        recvs.sort_by_key(|r| r.receiver.0);
        let mut queues: std::collections::HashMap<_, std::collections::VecDeque<usize>> = Default::default();
        for (i, s) in sends.iter().enumerate().filter(|(_, s)| !s.cancelled) {
            queues.entry((s.sender, s.receiver, s.comm, s.tag)).or_default().push_back(i);
        }
        let (mut want, mut orphans, mut mismatched) = (Vec::new(), 0, 0);
        for (j, r) in recvs.iter().enumerate() {
            match queues.get_mut(&(r.sender, r.receiver, r.comm, r.tag)).and_then(|q| q.pop_front()) {
                Some(i) => {
                    mismatched += (sends[i].length != r.length) as usize;
                    want.push(Matched { send: i, recv: j });
                }
                None => orphans += 1,
            }
        }
        let m = match_messages(&sends, &recvs);
        assert_eq!(m.matched, want);
        assert_eq!(m.unmatched_recvs, orphans);
        assert_eq!(m.unmatched_sends, queues.values().map(|q| q.len()).sum::<usize>());
        assert_eq!(m.length_mismatches, mismatched);
        assert!(orphans > 0 && m.unmatched_sends > 0 && mismatched > 0, "the cases the traffic is for");
    }

    #[test]
    fn collectives_group_by_communicator_and_order() {
        let part = |l: u32, comm: u32| CollectivePart {
            location: LocationId(l),
            region: RegionId(0),
            comm,
            op: 0,
            root: None,
            begin_ns: 0,
            end_ns: 1,
            sent: 0,
            received: 0,
        };
        let parts = [part(0, 0), part(0, 1), part(0, 0), part(1, 0), part(1, 0), part(1, 1)];
        assert_eq!(group_collectives(&parts), vec![0, 1, 2, 0, 2, 1]);
        // Random parts (runs on one communicator, locations revisited, communicators skipped) against the
        // rule written plainly: the k-th on a communicator at each location is one instance, numbered in
        // order of first appearance.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..50 {
            let parts: Vec<CollectivePart> = (0..500)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    part((seed % 5) as u32, ((seed >> 8) % (round % 4 + 1)) as u32)
                })
                .collect();
            let (mut seen, mut instance) = (HashMap::default(), HashMap::default());
            let want: Vec<u32> = parts
                .iter()
                .map(|p| {
                    let k: &mut u32 = seen.entry((p.location, p.comm)).or_insert(0);
                    *k += 1;
                    let next = instance.len() as u32;
                    *instance.entry((p.comm, *k - 1)).or_insert(next)
                })
                .collect();
            assert_eq!(group_collectives(&parts), want, "round {round}");
        }
    }
}
