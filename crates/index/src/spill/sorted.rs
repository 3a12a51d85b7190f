//! Records sorted within a share of `--memory` (issue #53: `weft index --waits` within `--memory`): a
//! [`Sorter`] holds records until they pass its share, then writes them as a sorted run in the spill
//! ([`Runs`]); read back in order ([`Sorted::reader`]: the records held, sorted, or the runs' k-way merge),
//! or as a [`Paged`] sequence found by binary search a page at a time.
//!
//! Records are compared whole (`Ord`), so what is read back is the one sort of all of them, whatever the
//! share: a step built on these gives the same bytes at any `--memory`. Plain Rust over the caller's
//! [`Spill`]; it must not decide what is sorted by.

use crate::spill::runs::{Keys, Merge, Record, Runs};
use crate::spill::Spill;

/// Where sorted runs go: the spill, its next free key, and the bytes each sorter may hold.
pub(crate) struct Room<'s> {
    pub(crate) spill: &'s mut dyn Spill,
    pub(crate) keys: Keys,
    /// Bytes a [`Sorter`] holds before it writes a run.
    pub(crate) share: u64,
    /// Bytes of the runs' pages (a merge holds one of each run).
    pub(crate) page: usize,
    /// Bytes written to the spill so far.
    pub(crate) spilled: u64,
}

impl<'s> Room<'s> {
    /// A room in `spill` (from key 0: the caller's keys are no longer needed) where each sorter holds
    /// `share` bytes: pages of a sixty-fourth of it, 4 to 64 KiB (so that a merge of up to 64 runs holds
    /// no more than a share of pages).
    pub(crate) fn new(spill: &'s mut dyn Spill, share: u64) -> Room<'s> {
        let page = (share / 64).clamp(4 << 10, crate::spill::runs::PAGE_BYTES as u64) as usize;
        Room { spill, keys: Keys(0), share, page, spilled: 0 }
    }
}

/// Records held until they pass a share, then written as sorted runs.
pub(crate) struct Sorter<T> {
    held: Vec<T>,
    /// Records held at most.
    most: usize,
    runs: Runs,
}

impl<T: Record + Send + Sync + 'static> Sorter<T> {
    pub(crate) fn new(room: &Room) -> Sorter<T> {
        let most = (room.share / std::mem::size_of::<T>().max(1) as u64).max(1) as usize;
        Sorter { held: Vec::new(), most, runs: Runs::new(room.page) }
    }

    pub(crate) fn push(&mut self, x: T, room: &mut Room) -> Result<(), String> {
        if self.held.len() == self.held.capacity() && self.held.capacity() * 2 > self.most {
            // (Grown to the share exactly, not to the next power of two past it.)
            self.held.reserve_exact(self.most.saturating_sub(self.held.len()).max(1));
        }
        self.held.push(x);
        if self.held.len() >= self.most {
            self.held.sort_unstable();
            let before = self.runs.bytes;
            self.runs.write(&self.held, room.spill, &mut room.keys)?;
            room.spilled += self.runs.bytes - before;
            self.held.clear();
        }
        Ok(())
    }

    /// Every record pushed, to be read in order: held (sorted) when none was written, else as runs.
    pub(crate) fn finish(mut self, room: &mut Room) -> Result<Sorted<T>, String> {
        self.held.sort_unstable();
        if self.runs.is_empty() {
            return Ok(Sorted::Held(self.held));
        }
        let before = self.runs.bytes;
        self.runs.write(&self.held, room.spill, &mut room.keys)?;
        room.spilled += self.runs.bytes - before;
        Ok(Sorted::Runs(self.runs))
    }
}

/// A [`Sorter`]'s records, sorted.
pub(crate) enum Sorted<T> {
    Held(Vec<T>),
    Runs(Runs),
}

impl<T: Record + 'static> Sorted<T> {
    pub(crate) fn reader(&self) -> Reader<'_, T> {
        match self {
            Sorted::Held(v) => Reader::Held(v.iter()),
            Sorted::Runs(r) => Reader::Merge(r.merge()),
        }
    }
}

/// [`Sorted`]'s records in order, one at a time.
pub(crate) enum Reader<'a, T> {
    Held(std::slice::Iter<'a, T>),
    Merge(Merge<'a, T>),
}

impl<T: Record + 'static> Reader<'_, T> {
    pub(crate) fn next(&mut self, spill: &dyn Spill) -> Result<Option<T>, String> {
        match self {
            Reader::Held(i) => Ok(i.next().copied()),
            Reader::Merge(m) => m.next(spill),
        }
    }
}

/// Pages of a [`Paged`] sequence kept read at once (the lookups of the root causes and the critical path
/// go back and forth over a few places).
const CACHED_PAGES: usize = 8;

/// A sorted sequence read by position: held, or written in pages of the spill with each page's first
/// record held (a binary search reads one page), the last few pages read kept.
pub(crate) enum Paged<T> {
    Held(Vec<T>),
    Pages {
        keys: Vec<usize>,
        firsts: Vec<T>,
        /// Records a page (all but the last full).
        per: usize,
        len: usize,
        /// (page, its records), the latest read last.
        cache: Vec<(usize, Vec<T>)>,
    },
}

/// Builds a [`Paged`] from records given in order: held while `held` (the caller knows they fit), else
/// written a page at a time.
pub(crate) struct PagedWriter<T> {
    out: Paged<T>,
    page: Vec<T>,
}

impl<T: Record> PagedWriter<T> {
    pub(crate) fn new(held: bool, room: &Room) -> PagedWriter<T> {
        let out = match held {
            true => Paged::Held(Vec::new()),
            false => Paged::Pages {
                keys: Vec::new(),
                firsts: Vec::new(),
                per: (room.page / T::BYTES).max(1),
                len: 0,
                cache: Vec::new(),
            },
        };
        PagedWriter { out, page: Vec::new() }
    }

    pub(crate) fn push(&mut self, x: T, room: &mut Room) -> Result<(), String> {
        match &mut self.out {
            Paged::Held(v) => v.push(x),
            Paged::Pages { per, .. } => {
                let per = *per;
                self.page.push(x);
                if self.page.len() == per {
                    self.flush(room)?;
                }
            }
        }
        Ok(())
    }

    fn flush(&mut self, room: &mut Room) -> Result<(), String> {
        let Paged::Pages { keys, firsts, len, .. } = &mut self.out else { return Ok(()) };
        let Some(&first) = self.page.first() else { return Ok(()) };
        let mut bytes = Vec::with_capacity(self.page.len() * T::BYTES);
        self.page.iter().for_each(|r| r.put(&mut bytes));
        let key = room.keys.take();
        room.spill.put(key, &bytes)?;
        room.spilled += bytes.len() as u64;
        keys.push(key);
        firsts.push(first);
        *len += self.page.len();
        self.page.clear();
        Ok(())
    }

    pub(crate) fn finish(mut self, room: &mut Room) -> Result<Paged<T>, String> {
        self.flush(room)?;
        Ok(self.out)
    }
}

impl<T: Record> Paged<T> {
    /// `sorted` by position: held as it is, or its runs merged into pages.
    pub(crate) fn of(sorted: Sorted<T>, room: &mut Room) -> Result<Paged<T>, String>
    where
        T: 'static,
    {
        match sorted {
            Sorted::Held(v) => Ok(Paged::Held(v)),
            Sorted::Runs(runs) => {
                let mut w = PagedWriter::new(false, room);
                let mut m = runs.merge::<T>();
                while let Some(x) = m.next(&*room.spill)? {
                    w.push(x, room)?;
                }
                w.finish(room)
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Paged::Held(v) => v.len(),
            Paged::Pages { len, .. } => *len,
        }
    }

    /// The record at `i` (below [`len`](Self::len)).
    pub(crate) fn get(&mut self, i: usize, spill: &dyn Spill) -> Result<T, String> {
        match self {
            Paged::Held(v) => Ok(v[i]),
            Paged::Pages { keys, per, cache, .. } => {
                let (p, at) = (i / *per, i % *per);
                if let Some(k) = cache.iter().position(|c| c.0 == p) {
                    // (Most recent last.)
                    let c = cache.remove(k);
                    cache.push(c);
                } else {
                    let bytes = spill.get(keys[p])?;
                    if bytes.is_empty() || bytes.len() % T::BYTES != 0 {
                        return Err(format!("a spilled page is damaged: {} bytes", bytes.len()));
                    }
                    if cache.len() == CACHED_PAGES {
                        cache.remove(0);
                    }
                    cache.push((p, bytes.chunks_exact(T::BYTES).map(T::get).collect()));
                }
                let page = &cache[cache.len() - 1].1;
                page.get(at).copied().ok_or_else(|| format!("a spilled page is short: {at} of {}", page.len()))
            }
        }
    }

    /// The first position in `lo..hi` whose record is not `before` (`before` true for a prefix of it, as
    /// `slice::partition_point` asks).
    pub(crate) fn partition_point(
        &mut self,
        lo: usize,
        hi: usize,
        spill: &dyn Spill,
        before: impl Fn(&T) -> bool,
    ) -> Result<usize, String> {
        let (mut lo, mut hi) = (lo, hi);
        if let Paged::Held(v) = self {
            return Ok(lo + v[lo..hi].partition_point(before));
        }
        if let Paged::Pages { firsts, per, .. } = self {
            // The pages' first records narrow it to one page.
            let per = *per;
            let (pa, pb) = (lo.div_ceil(per), hi.div_ceil(per));
            if pa < pb {
                let k = pa + firsts[pa..pb].partition_point(&before);
                if k > pa {
                    lo = lo.max((k - 1) * per);
                }
                if k < pb {
                    hi = hi.min(k * per);
                }
            }
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if before(&self.get(mid, spill)?) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spill::MemorySpill;
    use weft_store::format::particles::Particle;

    /// Sorted within any share, read in order and by position, the records are the one sort of all.
    #[test]
    fn sorted_and_paged_give_the_one_sort_whatever_the_share() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let all: Vec<Particle> = (0..5000)
            .map(|i| Particle { start_ns: next() % 700, location: (next() % 5) as u32, index: i, region: 0, dur_ns: 1 })
            .collect();
        let mut want = all.clone();
        want.sort();
        for share in [1u64, 4 << 10, 40 << 10, 1 << 30] {
            let mut spill = MemorySpill::default();
            let mut room = Room::new(&mut spill, share);
            let mut s = Sorter::new(&room);
            for &p in &all {
                s.push(p, &mut room).unwrap();
            }
            let sorted = s.finish(&mut room).unwrap();
            assert_eq!(matches!(sorted, Sorted::Held(_)), share == 1 << 30, "share {share}");
            let mut r = sorted.reader();
            let mut got = Vec::new();
            while let Some(p) = r.next(&*room.spill).unwrap() {
                got.push(p);
            }
            assert_eq!(got, want, "share {share}");
            let mut paged = Paged::of(sorted, &mut room).unwrap();
            assert_eq!(paged.len(), want.len());
            for i in [0, 1, 2499, 4998, 4999, 17, 3000, 0] {
                assert_eq!(paged.get(i, &*room.spill).unwrap(), want[i], "share {share}: {i}");
            }
            for t in [0u64, 1, 350, 699, 700] {
                for (lo, hi) in [(0, 5000), (10, 4000), (2000, 2001), (5000, 5000)] {
                    let k = paged.partition_point(lo, hi, &*room.spill, |p| p.start_ns < t).unwrap();
                    assert_eq!(k, lo + want[lo..hi].partition_point(|p| p.start_ns < t), "{share} {t} {lo}..{hi}");
                }
            }
        }
    }
}
