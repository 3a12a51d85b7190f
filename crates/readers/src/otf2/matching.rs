//! Pairs MPI sends with receives, and groups per-location collective records into operation instances.
//!
//! Point-to-point: MPI guarantees messages between one sender and one receiver on one communicator with one
//! tag arrive in the order they were sent (non-overtaking), so the k-th send of a (sender, receiver,
//! communicator, tag) channel matches the k-th receive of the same channel in the order the receives were
//! POSTED (an MPI_Irecv at its request, a blocking receive where it completes), which is not the order they
//! completed in when a later-posted request is waited for first. Non-blocking sends cancelled
//! through their request id never left and take no part. Collectives: every member of a communicator calls
//! its collectives in the same order, so the k-th collective on a communicator at each location is one
//! operation instance; on a self-like communicator (COMM_SELF, or one whose group is empty: each location
//! its own rank 0) every call is an operation instance of its own, with the caller its only member.
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
    /// Its place in its receiver's posting order (from 0, counting every receive posted there): a channel's
    /// receives are matched with its sends in this order.
    pub posted: u64,
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

/// Match sends to receives. Each list must be in per-location time order (file order); a channel's k-th
/// send (in file order) meets its k-th receive in posting order (`Recv::posted`).
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

/// [`match_messages`] handing each pair (send index, receive index) to `pair`, in receive
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
    // Each receive's channel (`NONE`: one no send took), and whether some channel's receives completed in
    // another order than they were posted in (rare: then they are put in posting order first).
    const NONE: u32 = u32::MAX;
    let mut last_posted = vec![0u64; counts.len()];
    let mut reordered = false;
    let chans: Vec<u32> = recvs
        .iter()
        .map(|r| match ids.get(&(r.sender, r.receiver, r.comm, r.tag)) {
            Some(&c) => {
                reordered |= r.posted < last_posted[c];
                last_posted[c] = r.posted;
                c as u32
            }
            None => NONE,
        })
        .collect();
    drop(last_posted);
    let mut out = MatchCounts::default();
    let mut matched = 0usize;
    let mut take = |i: usize, j: usize, out: &mut MatchCounts| {
        matched += 1;
        if sends[i].length != recvs[j].length {
            out.length_mismatches += 1;
        }
        pair(i, j)
    };
    if !reordered {
        for (j, &c) in chans.iter().enumerate() {
            let c = c as usize;
            match (c != NONE as usize && next[c] < starts[c + 1]).then_some(c) {
                Some(c) => {
                    let i = order[next[c]];
                    next[c] += 1;
                    take(i, j, &mut out)?;
                }
                None => out.unmatched_recvs += 1,
            }
        }
    } else {
        // Each channel's receives in posting order (a counting sort by channel keeps record order; a stable
        // sort by posting number within each), the k-th given the channel's k-th send.
        let mut at = vec![0usize; counts.len() + 1];
        for &c in chans.iter().filter(|&&c| c != NONE) {
            at[c as usize + 1] += 1;
        }
        for c in 0..counts.len() {
            at[c + 1] += at[c];
        }
        let first = at.clone();
        let mut posted = vec![0usize; at[counts.len()]];
        for (j, &c) in chans.iter().enumerate().filter(|(_, &c)| c != NONE) {
            posted[at[c as usize]] = j;
            at[c as usize] += 1;
        }
        let mut send_of = vec![usize::MAX; recvs.len()];
        for c in 0..counts.len() {
            let slice = &mut posted[first[c]..first[c + 1]];
            slice.sort_by_key(|&j| recvs[j].posted);
            for (k, &j) in slice.iter().enumerate().take(counts[c]) {
                send_of[j] = order[starts[c] + k];
            }
        }
        for (j, &i) in send_of.iter().enumerate() {
            match i {
                usize::MAX => out.unmatched_recvs += 1,
                i => take(i, j, &mut out)?,
            }
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
    /// Self-like communicators: each part on one is an instance of its own.
    self_like: rustc_hash::FxHashSet<u32>,
}

impl Collectives {
    /// A grouping in which the communicators `comms` are self-like (COMM_SELF, or an empty group): each
    /// location is rank 0 of its own, so each of its calls is an operation with one member.
    pub fn self_like(comms: impl IntoIterator<Item = u32>) -> Collectives {
        Collectives { self_like: comms.into_iter().collect(), ..Collectives::default() }
    }

    /// The next part's operation instance.
    pub fn operation(&mut self, p: &CollectivePart) -> u32 {
        if self.self_like.contains(&p.comm) {
            self.instances += 1;
            return self.instances - 1;
        }
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
        Recv {
            sender: LocationId(s),
            receiver: LocationId(r),
            comm: 0,
            tag,
            length: 8,
            time_ns: t,
            posted_ns: t,
            posted: t as u64,
        }
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

    /// Two receives of one channel posted in one order (MPI_Irecv at 10, then at 20) and completed in the
    /// other: the first message sent meets the receive posted first, whichever completed first; pairs are
    /// still handed over in receive order.
    #[test]
    fn a_channel_is_matched_in_posting_order() {
        let sends = [send(0, 1, 1, 5), send(0, 1, 1, 6), send(0, 1, 2, 7)];
        let mut recvs = [recv(0, 1, 1, 40), recv(0, 1, 2, 45), recv(0, 1, 1, 50), recv(0, 1, 1, 60)];
        // Posted: the tag-1 receive completed at 50 first (posting 0), the one completed at 40 second, the
        // tag-2 one third, the one completed at 60 (an orphan) last.
        (recvs[0].posted, recvs[0].posted_ns) = (1, 20);
        (recvs[1].posted, recvs[1].posted_ns) = (2, 30);
        (recvs[2].posted, recvs[2].posted_ns) = (0, 10);
        let m = match_messages(&sends, &recvs);
        assert_eq!(
            m.matched,
            vec![Matched { send: 1, recv: 0 }, Matched { send: 2, recv: 1 }, Matched { send: 0, recv: 2 }]
        );
        assert_eq!((m.unmatched_sends, m.unmatched_recvs), (0, 1));
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

    /// On random traffic whose receives were posted out of completion order here and there, each channel's
    /// k-th send meets its k-th receive by posting number (the channel's receives sorted by it: the oracle).
    #[test]
    fn each_channel_meets_its_receives_in_posting_order() {
        let (sends, mut recvs) = traffic(0x9e37_79b9_7f4a_7c15, 20_000, (7, 50), (60, 50, 25));
        for (j, r) in recvs.iter_mut().enumerate() {
            r.posted = j as u64 ^ 6;
        }
        let mut queues: std::collections::HashMap<_, std::collections::VecDeque<usize>> = Default::default();
        for (i, s) in sends.iter().enumerate().filter(|(_, s)| !s.cancelled) {
            queues.entry((s.sender, s.receiver, s.comm, s.tag)).or_default().push_back(i);
        }
        let mut by_channel: std::collections::HashMap<_, Vec<usize>> = Default::default();
        for (j, r) in recvs.iter().enumerate() {
            by_channel.entry((r.sender, r.receiver, r.comm, r.tag)).or_default().push(j);
        }
        let mut send_of = vec![None; recvs.len()];
        for (channel, mut js) in by_channel {
            js.sort_by_key(|&j| recvs[j].posted);
            let queue = queues.entry(channel).or_default();
            for j in js {
                send_of[j] = queue.pop_front();
            }
        }
        let want: Vec<Matched> =
            send_of.iter().enumerate().filter_map(|(j, i)| i.map(|send| Matched { send, recv: j })).collect();
        let m = match_messages(&sends, &recvs);
        assert_eq!(m.matched, want);
        assert_eq!(m.unmatched_recvs, send_of.iter().filter(|i| i.is_none()).count());
        assert_eq!(m.unmatched_sends, queues.values().map(|q| q.len()).sum::<usize>());
        // The case the test is for: some pairs differ from completion order's.
        let plain: Vec<Recv> = recvs.iter().enumerate().map(|(j, r)| Recv { posted: j as u64, ..*r }).collect();
        assert_ne!(match_messages(&sends, &plain).matched, want);
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

    /// On a self-like communicator (1 here) each call is an operation of its own, whoever makes it; the
    /// others are grouped as before around them.
    #[test]
    fn collectives_on_a_self_like_communicator_are_each_their_own() {
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
        let parts = [part(0, 1), part(0, 0), part(0, 1), part(1, 1), part(1, 0), part(1, 1)];
        let mut group = Collectives::self_like([1]);
        let ops: Vec<u32> = parts.iter().map(|p| group.operation(p)).collect();
        assert_eq!(ops, vec![0, 1, 2, 3, 1, 4]);
        // Without saying so, communicator 1 is grouped as any other.
        assert_eq!(group_collectives(&parts), vec![0, 1, 2, 0, 1, 2]);
    }
}
