//! Sorted runs of fixed-width records in a streamed index's spill, merged k ways (issue #17: what pass 2
//! must take in an order other than the one it is made in, in bounded memory): matched messages put in the
//! trace's order (`comms`), and the particle view's intervals put in start order across blocks (`stream`).
//!
//! A run is written in pages, each page under a key of its own in the [`Spill`]; merging holds one page
//! of each run. Records are compared whole (`Ord`): their keys are unique, so the merge's order is the
//! one sort of all of them would give.
//!
//! Plain Rust, no files (the spill is the caller's); it must not decide what is sorted by.

use crate::spill::Spill;
use weft_model::sort::KMerge;
use weft_store::format::particles::Particle;

/// A record as it is spilled: `BYTES` bytes, little endian.
pub(crate) trait Record: Copy + Ord {
    const BYTES: usize;
    fn put(&self, out: &mut Vec<u8>);
    /// The record in `b` (exactly `BYTES` bytes).
    fn get(b: &[u8]) -> Self;
    /// A lower bound of the record's place in the order, as a number that never falls along a sorted run
    /// (the particles' start): a run's pages are found by it ([`Runs::merge_from`]), and the merge compares
    /// leads before records, so a record with a smaller lead must come first in the order. `u64::MAX` (the
    /// default): the record's pages are never skipped, and every comparison is of the whole records.
    fn lead(&self) -> u64 {
        u64::MAX
    }
}

/// Bytes of a page read back at a time, at most (one per run while merging).
pub(crate) const PAGE_BYTES: usize = 64 << 10;

/// The spill's next free key (pages and block files take keys past the locations').
pub(crate) struct Keys(pub(crate) usize);

impl Keys {
    pub(crate) fn take(&mut self) -> usize {
        self.0 += 1;
        self.0 - 1
    }
}

/// Runs written so far: each its pages' keys in order, and runs held in memory as records (when the spill
/// keeps them in memory: no encoding, copy into the spill, copy out and decoding).
#[derive(Default)]
pub(crate) struct Runs {
    runs: Vec<Vec<usize>>,
    /// Runs held as records (each a `Vec<T>` of the one record type the runs are merged as).
    held: Vec<Box<dyn std::any::Any + Send + Sync>>,
    /// Per run, per page: its last record's [`Record::lead`] and its records (`u64::MAX` and 0 for a page
    /// added as bytes).
    leads: Vec<Vec<(u64, u32)>>,
    /// Bytes of a page (a whole number of records).
    page: usize,
    pub(crate) bytes: u64,
}

impl Runs {
    /// Runs written in pages of at most `page` bytes (at least one record).
    pub(crate) fn new(page: usize) -> Runs {
        Runs { runs: Vec::new(), held: Vec::new(), leads: Vec::new(), page: page.max(1), bytes: 0 }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.runs.is_empty() && self.held.is_empty()
    }

    /// Hold `sorted` (sorted already) as one run, in memory: the caller counts its bytes against what the
    /// spill keeps in memory ([`Spill::keep`]).
    pub(crate) fn hold<T: Record + Send + Sync + 'static>(&mut self, sorted: Vec<T>) {
        if sorted.is_empty() {
            return;
        }
        self.bytes += (sorted.len() * T::BYTES) as u64;
        self.held.push(Box::new(sorted));
    }

    /// The runs held, as records of `T` (the one type held and merged: another is a caller's bug, which
    /// stops here rather than leave the run's records out).
    fn held<T: Record + 'static>(&self) -> impl Iterator<Item = &[T]> + '_ {
        self.held.iter().map(|r| r.downcast_ref::<Vec<T>>().expect("runs merged as the type held").as_slice())
    }

    /// Write `sorted` (sorted already) as one run.
    pub(crate) fn write<T: Record>(
        &mut self,
        sorted: &[T],
        spill: &mut dyn Spill,
        keys: &mut Keys,
    ) -> Result<(), String> {
        if sorted.is_empty() {
            return Ok(());
        }
        let per = (self.page / T::BYTES).max(1);
        let mut buf = Vec::with_capacity(per * T::BYTES);
        let mut pages = Vec::with_capacity(sorted.len().div_ceil(per));
        let mut leads = Vec::with_capacity(pages.capacity());
        for page in sorted.chunks(per) {
            buf.clear();
            page.iter().for_each(|r| r.put(&mut buf));
            let key = keys.take();
            spill.put(key, &buf)?;
            self.bytes += buf.len() as u64;
            pages.push(key);
            leads.push((page.last().map_or(u64::MAX, Record::lead), page.len() as u32));
        }
        self.runs.push(pages);
        self.leads.push(leads);
        Ok(())
    }

    /// Append `bytes` (whole records, sorted after the run's) to run `run` as a page of its own, making the
    /// runs before it as needed (empty until given pages).
    pub(crate) fn add_page(
        &mut self,
        run: usize,
        bytes: &[u8],
        spill: &mut dyn Spill,
        keys: &mut Keys,
    ) -> Result<(), String> {
        if self.runs.len() <= run {
            self.runs.resize(run + 1, Vec::new());
            self.leads.resize(run + 1, Vec::new());
        }
        if bytes.is_empty() {
            return Ok(());
        }
        let key = keys.take();
        spill.put(key, bytes)?;
        self.bytes += bytes.len() as u64;
        self.runs[run].push(key);
        self.leads[run].push((u64::MAX, 0));
        Ok(())
    }

    /// The records of every run, smallest first.
    /// (The spill is handed to each [`Merge::next`], so that it may be written between them.)
    pub(crate) fn merge<T: Record + 'static>(&self) -> Merge<'_, T> {
        self.merge_from(0)
    }

    /// Leads that cut the runs' records into `parts` parts of about as many records each: part `i` the
    /// records whose lead is from `cuts[i - 1]` (0 for the first) to below `cuts[i]` (`parts - 1` cuts, in
    /// order). Counted a page at a time, each page's records at its last one's lead, so even to a page a run
    /// (pages added as bytes are not counted).
    pub(crate) fn even_cuts<T: Record + 'static>(&self, parts: usize) -> Vec<u64> {
        let mut pages: Vec<(u64, u32)> = self.leads.iter().flatten().copied().filter(|p| p.1 > 0).collect();
        // A run held counts as the pages it would have been written in.
        let per = (self.page / T::BYTES).max(1);
        for run in self.held::<T>() {
            pages.extend(run.chunks(per).map(|c| (c[c.len() - 1].lead(), c.len() as u32)));
        }
        pages.sort_unstable();
        let total: u64 = pages.iter().map(|p| p.1 as u64).sum();
        let mut cuts = Vec::with_capacity(parts.saturating_sub(1));
        let (mut seen, mut at) = (0u64, 0usize);
        for i in 1..parts {
            let want = total * i as u64 / parts as u64;
            while at < pages.len() && seen + pages[at].1 as u64 <= want {
                seen += pages[at].1 as u64;
                at += 1;
            }
            // The page that passes the share: the cut falls at its last lead (its records mostly before it).
            cuts.push(pages.get(at).map_or(u64::MAX, |p| p.0));
        }
        cuts
    }

    /// [`merge`](Self::merge) from the first page of each run whose last record's [`Record::lead`] is
    /// `from` or more: every record with a smaller lead in a page before it is left out (some of the pages
    /// given may still hold such records). The records given keep the merge's order.
    pub(crate) fn merge_from<T: Record + 'static>(&self, from: u64) -> Merge<'_, T> {
        let runs = self.runs.iter().zip(&self.leads).map(|(p, l)| {
            let skip = l.iter().take_while(|&&(lead, _)| lead < from).count();
            Cursor::Pages { pages: &p[skip..], page: Vec::new(), at: 0 }
        });
        // A run held from its first record with that lead (a record's lead bounds its place in the order,
        // so the ones before it are all smaller).
        let held = self.held::<T>().map(|r| Cursor::Held(&r[r.partition_point(|x| x.lead() < from)..]));
        let runs: Vec<_> = runs.chain(held).collect();
        Merge { runs, merge: None }
    }
}

/// A k-way merge of sorted runs, one page of each in memory ([`KMerge`]): the records compared by their
/// leads first ([`Record::lead`], a number: the particles' start), whole only where the leads are equal.
pub(crate) struct Merge<'r, T> {
    runs: Vec<Cursor<'r, T>>,
    /// The runs' next records; None until the first is asked for (the runs' first pages read then).
    merge: Option<KMerge<Led<T>>>,
}

/// A record with its lead, ordered by the lead first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Led<T> {
    lead: u64,
    record: T,
}

impl<T: Record> Led<T> {
    #[inline(always)]
    fn of(record: T) -> Led<T> {
        Led { lead: record.lead(), record }
    }
}

enum Cursor<'r, T> {
    /// A run in the spill: its pages still to read, and the one read.
    Pages { pages: &'r [usize], page: Vec<T>, at: usize },
    /// A run held: its records still to give.
    Held(&'r [T]),
}

impl<T: Record> Cursor<'_, T> {
    /// The run's next record, reading its next page when this one is done (a run held: inline).
    #[inline(always)]
    fn next(&mut self, spill: &dyn Spill) -> Result<Option<T>, String> {
        match self {
            Cursor::Held(rest) => {
                let Some((&first, others)) = rest.split_first() else { return Ok(None) };
                *rest = others;
                Ok(Some(first))
            }
            Cursor::Pages { .. } => self.next_paged(spill),
        }
    }

    #[inline(never)]
    fn next_paged(&mut self, spill: &dyn Spill) -> Result<Option<T>, String> {
        let Cursor::Pages { pages, page, at } = self else { return Ok(None) };
        if *at == page.len() {
            let Some((&key, rest)) = pages.split_first() else { return Ok(None) };
            *pages = rest;
            let bytes = spill.get(key)?;
            if bytes.len() % T::BYTES != 0 || bytes.is_empty() {
                return Err(format!("a spilled run is damaged: a page of {} bytes", bytes.len()));
            }
            page.clear();
            page.extend(bytes.chunks_exact(T::BYTES).map(T::get));
            *at = 0;
        }
        *at += 1;
        Ok(Some(page[*at - 1]))
    }
}

impl<T: Record> Merge<'_, T> {
    /// The smallest record not yet given, over all runs.
    #[inline]
    pub(crate) fn next(&mut self, spill: &dyn Spill) -> Result<Option<T>, String> {
        let merge = match &mut self.merge {
            Some(m) => m,
            None => {
                let mut heads = Vec::with_capacity(self.runs.len());
                for c in &mut self.runs {
                    heads.push(c.next(spill)?.map(Led::of));
                }
                self.merge.insert(KMerge::new(heads))
            }
        };
        let Some((k, _)) = merge.peek() else { return Ok(None) };
        let next = self.runs[k].next(spill)?.map(Led::of);
        Ok(merge.replace(next).map(|l| l.record))
    }
}

/// `u64` at `b[i..i + 8]`.
pub(crate) fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))
}

/// `u32` at `b[i..i + 4]`.
pub(crate) fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"))
}

/// A particle (`store::format::particles::Particle`) as spilled: start, location, trace index, region, duration.
impl Record for Particle {
    const BYTES: usize = 32;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.start_ns.to_le_bytes());
        out.extend_from_slice(&self.location.to_le_bytes());
        out.extend_from_slice(&self.index.to_le_bytes());
        out.extend_from_slice(&self.region.to_le_bytes());
        out.extend_from_slice(&self.dur_ns.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        Particle {
            start_ns: u64_at(b, 0),
            location: u32_at(b, 8),
            index: u64_at(b, 12),
            region: u32_at(b, 20),
            dur_ns: u64_at(b, 24),
        }
    }
    /// The start (particles sort by it first).
    fn lead(&self) -> u64 {
        self.start_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spill::MemorySpill;
    use weft_store::format::particles::Particle;

    /// `n` particles from `seed` (xorshift): starts below `starts`, locations below `locations`, regions below
    /// `regions`, durations below `durs`; each a distinct trace index.
    fn particles(n: u64, mut seed: u64, (starts, locations, regions, durs): (u64, u64, u64, u64)) -> Vec<Particle> {
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        (0..n)
            .map(|i| Particle {
                start_ns: next() % starts,
                location: (next() % locations) as u32,
                index: i,
                region: (next() % regions) as u32,
                dur_ns: next() % durs,
            })
            .collect()
    }

    /// `all` written as runs of `chunk` (each sorted), in pages of `page` bytes.
    fn runs_of(all: &[Particle], chunk: usize, page: usize) -> (MemorySpill, Runs) {
        let (mut spill, mut keys, mut runs) = (MemorySpill::default(), Keys(3), Runs::new(page));
        for c in all.chunks(chunk) {
            let mut c = c.to_vec();
            c.sort();
            runs.write(&c, &mut spill, &mut keys).unwrap();
        }
        (spill, runs)
    }

    /// Every record a merge gives.
    fn drain(mut m: Merge<'_, Particle>, spill: &MemorySpill) -> Vec<Particle> {
        let mut got = Vec::new();
        while let Some(p) = m.next(spill).unwrap() {
            got.push(p);
        }
        got
    }

    /// Runs of any page size merge into the one sort of all their records.
    #[test]
    fn runs_merge_into_the_sort_of_all() {
        let all = particles(5000, 0x2545_f491_4f6c_dd1d, (1000, 7, 5, 99));
        let mut want = all.clone();
        want.sort();
        for (chunk, page) in [(5000, PAGE_BYTES), (1, 32), (333, 100), (1024, 4096)] {
            let (spill, runs) = runs_of(&all, chunk, page);
            assert_eq!(drain(runs.merge(), &spill), want, "runs of {chunk}, pages of {page} bytes");
        }
    }

    /// Runs held as records merge with runs in pages as the pages alone would: the one sort of all, from
    /// any lead every record with it or more, and even cuts counting both.
    #[test]
    fn runs_held_merge_with_runs_in_pages() {
        let all = particles(7000, 0x0bad_cafe_f00d_1234, (3000, 6, 4, 40));
        let mut want = all.clone();
        want.sort();
        let (mut spill, mut keys) = (MemorySpill::default(), Keys(0));
        let (mut mixed, mut paged) = (Runs::new(320), Runs::new(320));
        let (mut paged_spill, mut paged_keys) = (MemorySpill::default(), Keys(0));
        for (i, c) in all.chunks(900).enumerate() {
            let mut c = c.to_vec();
            c.sort();
            paged.write(&c, &mut paged_spill, &mut paged_keys).unwrap();
            match i % 2 {
                0 => mixed.hold(c),
                _ => mixed.write(&c, &mut spill, &mut keys).unwrap(),
            }
        }
        assert_eq!(mixed.bytes, paged.bytes);
        assert_eq!(drain(paged.merge(), &paged_spill), want);
        assert_eq!(drain(mixed.merge(), &spill), want);
        for from in [0, 1, 1500, 2999, u64::MAX] {
            let got = drain(mixed.merge_from(from), &spill);
            let whole: Vec<_> = want.iter().filter(|p| p.start_ns >= from).copied().collect();
            assert_eq!(got.into_iter().filter(|p| p.start_ns >= from).collect::<Vec<_>>(), whole, "from {from}");
        }
        assert_eq!(mixed.even_cuts::<Particle>(3).len(), 2);
        let (a, b) = (mixed.even_cuts::<Particle>(3), paged.even_cuts::<Particle>(3));
        for (x, y) in a.iter().zip(&b) {
            assert!(x.abs_diff(*y) <= 3000 / 10, "cuts of held runs as of pages: {a:?} against {b:?}");
        }
    }

    /// Even cuts give parts of about as many records each, however the leads crowd: within a page a run of
    /// the even share.
    #[test]
    fn even_cuts_split_the_records_evenly() {
        // Starts crowded at the low end: most records below a tenth of the range.
        let mut all = particles(8000, 0x1234_5678_9abc_def1, (100_000, 5, 3, 10));
        for p in all.iter_mut() {
            p.start_ns = p.start_ns * p.start_ns / 100_000 * (p.start_ns % 3 + 1) / 3;
        }
        for (chunk, page, parts) in [(8000, 320, 4), (1000, 640, 3), (300, 32, 2), (8000, PAGE_BYTES, 4)] {
            let (_, runs) = runs_of(&all, chunk, page);
            let cuts = runs.even_cuts::<Particle>(parts);
            assert_eq!(cuts.len(), parts - 1);
            assert!(cuts.windows(2).all(|w| w[0] <= w[1]), "cuts in order: {cuts:?}");
            let slack = runs.runs.len() * (page / 32).max(1);
            let mut lo = 0;
            for (i, &hi) in cuts.iter().chain([u64::MAX].iter()).enumerate() {
                let n = all.iter().filter(|p| p.start_ns >= lo && (p.start_ns < hi || hi == u64::MAX)).count();
                let want = all.len() / parts;
                assert!(n.abs_diff(want) <= slack, "runs of {chunk}, pages of {page}: part {i} has {n}, not ~{want}");
                lo = hi;
            }
        }
        assert!(Runs::new(64).even_cuts::<Particle>(3).iter().all(|&c| c == u64::MAX), "no records: nothing to cut");
    }

    /// A merge from a lead gives, in order, every record of the whole merge with that lead or more, and
    /// only records of it: whole pages before it left out.
    #[test]
    fn a_merge_from_a_lead_keeps_every_record_from_it() {
        let all = particles(6000, 0x9e37_79b9_7f4a_7c15, (5000, 9, 1, 50));
        let mut want = all.clone();
        want.sort();
        for (chunk, page) in [(6000, PAGE_BYTES), (700, 320), (1, 32), (2048, 4096)] {
            let (spill, runs) = runs_of(&all, chunk, page);
            for from in [0, 1, 999, 2500, 4999, 5000, u64::MAX] {
                let got = drain(runs.merge_from(from), &spill);
                assert!(got.windows(2).all(|w| w[0] < w[1]), "in order: runs of {chunk}, from {from}");
                assert!(got.iter().all(|p| want.binary_search(p).is_ok()), "only records of the runs");
                let kept: Vec<_> = got.iter().filter(|p| p.start_ns >= from).collect();
                let whole: Vec<_> = want.iter().filter(|p| p.start_ns >= from).collect();
                assert_eq!(kept, whole, "runs of {chunk}, pages of {page} bytes, from {from}");
                if from == 0 {
                    assert_eq!(got, want);
                }
                // Pages of ten records or fewer: at most a page a run of earlier records is given.
                if page <= 320 {
                    let early = got.len() - kept.len();
                    assert!(early <= runs.runs.len() * page / 32, "runs of {chunk}, from {from}: {early} early");
                }
            }
        }
        // Pages added as bytes are never skipped.
        let (mut spill, mut keys, mut runs) = (MemorySpill::default(), Keys(0), Runs::new(64));
        let mut b = Vec::new();
        Particle { start_ns: 1, ..Particle::default() }.put(&mut b);
        runs.add_page(0, &b, &mut spill, &mut keys).unwrap();
        assert_eq!(drain(runs.merge_from(10), &spill), vec![Particle { start_ns: 1, ..Particle::default() }]);
    }

    /// Records without a lead (the messages': every play decided by the whole records) merge into the one
    /// sort of all, from runs of any length (ending at different plays) and one record each.
    #[test]
    fn records_without_a_lead_merge_whole() {
        use crate::comms::RawMessage;
        let mut seed = 0x51ed_270b_6a3c_9f11u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let all: Vec<RawMessage> = (0..3000)
            .map(|i| RawMessage {
                send_ns: (next() % 50) as i64,
                recv_ns: (next() % 60) as i64,
                nth: i,
                sender: (next() % 4) as u32,
                receiver: (next() % 4) as u32,
                size_bytes: next() % 9,
                tag: 0,
                name: 0,
                kind: 0,
                posted_ns: (next() % 60) as i64,
            })
            .collect();
        let mut want = all.clone();
        want.sort();
        for lengths in [vec![3000], vec![1; 3000], vec![1, 2999], vec![2000, 7, 993], vec![1000, 1000, 1000]] {
            let (mut spill, mut keys, mut runs) = (MemorySpill::default(), Keys(0), Runs::new(57 * 10));
            let mut at = 0;
            for n in &lengths {
                let mut c = all[at..at + n].to_vec();
                c.sort();
                runs.write(&c, &mut spill, &mut keys).unwrap();
                at += n;
            }
            let mut m = runs.merge::<RawMessage>();
            let mut got = Vec::new();
            while let Some(r) = m.next(&spill).unwrap() {
                got.push(r);
            }
            assert_eq!(got, want, "runs of {lengths:?}");
            assert_eq!(m.next(&spill).unwrap(), None, "nothing after the last");
        }
    }
}
