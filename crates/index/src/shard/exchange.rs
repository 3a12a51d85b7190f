//! How the shards of one index reach each other (MPI ranks, `weft index` under `mpirun`; threads in tests):
//! the [`Exchange`] trait the shard room sees the index through, a thread implementation of it, and two
//! small agreements made over it (what every shard matched; every shard's counts). What the shards send
//! one another is the index's business (`stream::exchanged`: a shard decoding only its own locations;
//! `message_sort`: the messages numbered together).
//!
//! Knows shards and bytes, not the index: it must not import `stream` or `message_sort` (they import it).

use crate::shard::partition::Shard;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;
use weft_readers::otf2::MatchedShare;

/// How the shards of one index reach each other: MPI (`weft index` under `mpirun`, src/bin/weft/mpi.rs),
/// or threads in one process ([`ThreadExchange`], tests). Every shard makes the same calls in the same
/// order.
pub trait Exchange {
    /// This shard, of how many.
    fn shard(&self) -> Shard;
    /// Shard `root`'s `bytes` to every shard: on the root they are its own, on the others they are
    /// replaced by the root's.
    fn broadcast(&self, root: u32, bytes: &mut Vec<u8>) -> Result<(), String>;
    /// Shard `from`'s `bytes` to shard `to` (replaced there by them); a shard that is neither, or both,
    /// does nothing.
    fn pass(&self, from: u32, to: u32, bytes: &mut Vec<u8>) -> Result<(), String>;
    /// Every shard's `out[k]` to shard k (one list per shard, its own included): returns what each shard
    /// sent this one, at the sender's index.
    fn all_to_all(&self, out: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, String>;
}

/// Shards as threads of one process, each holding one of these ([`group`](Self::group)).
pub struct ThreadExchange {
    shard: Shard,
    /// Per shard: a channel to it from this one.
    to: Vec<Mutex<Sender<Vec<u8>>>>,
    /// Per shard: the channel from it to this one.
    from: Vec<Mutex<Receiver<Vec<u8>>>>,
}

impl ThreadExchange {
    /// The exchanges of `n` shards, shard k's at k.
    pub fn group(n: u32) -> Vec<ThreadExchange> {
        let mut to: Vec<Vec<Option<Sender<Vec<u8>>>>> = (0..n).map(|_| (0..n).map(|_| None).collect()).collect();
        let mut from: Vec<Vec<Option<Receiver<Vec<u8>>>>> = (0..n).map(|_| (0..n).map(|_| None).collect()).collect();
        for a in 0..n as usize {
            for b in 0..n as usize {
                let (s, r) = channel();
                to[a][b] = Some(s);
                from[b][a] = Some(r);
            }
        }
        let mut out = Vec::new();
        for (k, (to, from)) in to.into_iter().zip(from).enumerate() {
            out.push(ThreadExchange {
                shard: Shard { index: k as u32, count: n },
                to: to.into_iter().map(|s| Mutex::new(s.expect("made above"))).collect(),
                from: from.into_iter().map(|r| Mutex::new(r.expect("made above"))).collect(),
            });
        }
        out
    }

    fn send(&self, to: u32, bytes: &[u8]) -> Result<(), String> {
        let s = self.to[to as usize].lock().map_err(|_| "a shard's thread panicked".to_string())?;
        s.send(bytes.to_vec()).map_err(|_| format!("shard {to} stopped"))
    }

    fn receive(&self, from: u32) -> Result<Vec<u8>, String> {
        let r = self.from[from as usize].lock().map_err(|_| "a shard's thread panicked".to_string())?;
        r.recv().map_err(|_| format!("shard {from} stopped"))
    }
}

impl Exchange for ThreadExchange {
    fn shard(&self) -> Shard {
        self.shard
    }

    fn broadcast(&self, root: u32, bytes: &mut Vec<u8>) -> Result<(), String> {
        if self.shard.index == root {
            for k in (0..self.shard.count).filter(|&k| k != root) {
                self.send(k, bytes)?;
            }
            return Ok(());
        }
        *bytes = self.receive(root)?;
        Ok(())
    }

    fn pass(&self, from: u32, to: u32, bytes: &mut Vec<u8>) -> Result<(), String> {
        let me = self.shard.index;
        if from == to {
            Ok(())
        } else if me == from {
            self.send(to, bytes)
        } else if me == to {
            *bytes = self.receive(from)?;
            Ok(())
        } else {
            Ok(())
        }
    }

    fn all_to_all(&self, mut out: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, String> {
        let (me, n) = (self.shard.index, self.shard.count);
        if out.len() != n as usize {
            return Err(format!("{} lists for {n} shards", out.len()));
        }
        // (The channels hold what is sent until it is received: every shard sends, then receives.)
        for k in (0..n).filter(|&k| k != me) {
            self.send(k, &out[k as usize])?;
        }
        let own = std::mem::take(&mut out[me as usize]);
        (0..n).map(|k| if k == me { Ok(own.clone()) } else { self.receive(k) }).collect()
    }
}

/// What every shard matched of the messages (`Otf2Stream::finish_streamed`), from this shard's `share`.
pub(crate) fn matched_together(x: &dyn Exchange, share: MatchedShare) -> Result<MatchedShare, String> {
    let all =
        numbers_to_all(x, [share.unmatched_sends, share.unmatched_recvs, share.first_ns as u64], "matched messages")?;
    let shares: Vec<MatchedShare> = all
        .iter()
        .map(|&[s, r, first]| MatchedShare { unmatched_sends: s, unmatched_recvs: r, first_ns: first as i64 })
        .collect();
    Ok(MatchedShare::sum(&shares))
}

/// Every shard's `mine` to every shard, at the shard's index (`what` names them in an error).
pub(crate) fn numbers_to_all(x: &dyn Exchange, mine: [u64; 3], what: &str) -> Result<Vec<[u64; 3]>, String> {
    let me = x.shard();
    let mut all = Vec::with_capacity(me.count as usize);
    for r in 0..me.count {
        let mut b = Vec::new();
        if r == me.index {
            mine.iter().for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
        }
        x.broadcast(r, &mut b)?;
        if b.len() != 24 {
            return Err(format!("shard {r}'s {what} are {} bytes", b.len()));
        }
        let at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        all.push([at(0), at(8), at(16)]);
    }
    Ok(all)
}
