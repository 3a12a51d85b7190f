//! The root causes of a store's waits (`diagnosis::root_causes`; docs/diagnosis.md): per wait with a cause
//! on another location, the exclusive time per region name the cause spent since the pair last met minus
//! the waiting location's, where positive. In two steps, each within the step's sorts (`spill::sorted`):
//! the waits read in order each find the pair's last meeting ([`Meetings::last`], a binary search in the
//! meetings sorted by pair and time, held or paged) and ask for its two ranges ([`RangeQuery`], sorted by
//! block, window and location); a third walk over the tiles sums each range's exclusive times as its
//! location's intervals pass ([`ranges_of_block`]), each range's sums a [`Part`] sorted by wait.
//! Memory: the step's sorters' shares, a few pages of each paged list, one events tile, and per location
//! of a block its stack of open intervals and its ranges still open.

use super::rows::{Joined, Leave, Meeting, Part, RangeQuery};
use super::{Open, Sweep, MAX_TILE_RAW};
use crate::spill::sorted::{Paged, Reader, Room, Sorter};
use crate::spill::Spill;
use weft_store::format::columns::unframe_tile;
use weft_store::format::events::{decode_events, TileInterval};
use weft_store::format::manifest::{Manifest, TileEntry};

/// Where two locations met (`diagnosis::root_causes`' `Meetings`): each message between them (the leaves
/// of the calls that sent and completed it), by pair and time; each blocking collective a location took part
/// in, by location and leave; and each member's leave by operation and location.
pub(super) struct Meetings {
    pub messages: Paged<Meeting>,
    pub joined: Paged<Joined>,
    pub leaves: Paged<Leave>,
}

impl Meetings {
    /// The pair's previous synchronization point: (time on `w`, time on `c`), no later than `tw` on `w` and
    /// `tc` on `c`; (0, 0) without one.
    pub fn last(&mut self, spill: &dyn Spill, w: u32, tw: u64, c: u32, tc: u64) -> Result<(u64, u64), String> {
        let mut best = (0, 0);
        let all = self.messages.len();
        let lo = self.messages.partition_point(0, all, spill, |x| (x.w, x.c) < (w, c))?;
        let upto = self.messages.partition_point(lo, all, spill, |x| (x.w, x.c, x.a) <= (w, c, tw))?;
        for k in (lo..upto).rev() {
            let x = self.messages.get(k, spill)?;
            if x.b <= tc {
                best = best.max((x.a, x.b));
                break;
            }
        }
        let all = self.joined.len();
        let lo = self.joined.partition_point(0, all, spill, |x| x.location < w)?;
        let upto = self.joined.partition_point(lo, all, spill, |x| (x.location, x.t) <= (w, tw))?;
        for k in (lo..upto).rev() {
            let x = self.joined.get(k, spill)?;
            if x.t < best.0 {
                break;
            }
            if let Some(b) = self.leave(spill, x.operation, c)? {
                if b <= tc {
                    best = best.max((x.t, b));
                    break;
                }
            }
        }
        Ok(best)
    }

    /// Location `l`'s leave of `operation` (its last row's), if it took part.
    fn leave(&mut self, spill: &dyn Spill, operation: u32, l: u32) -> Result<Option<u64>, String> {
        let all = self.leaves.len();
        let k = self.leaves.partition_point(0, all, spill, |x| (x.operation, x.location) <= (operation, l))?;
        if k == 0 {
            return Ok(None);
        }
        let x = self.leaves.get(k - 1, spill)?;
        Ok(((x.operation, x.location) == (operation, l)).then_some(x.t))
    }
}

/// A range query being summed: its exclusive time per region name (string id).
pub(super) struct Active {
    q: RangeQuery,
    /// (name, ns): a range meets a few region names, a short list beats a map.
    sums: Vec<(u32, i64)>,
}

impl Active {
    /// Interval `o` (its parent `parent`) inside the range: its overlap to its name, off its parent's.
    fn add(&mut self, names: &[u32], o: &Open, parent: Option<Open>) {
        let d = (o.end.min(self.q.b).saturating_sub(o.start.max(self.q.a))) as i64;
        if d == 0 {
            return;
        }
        self.put(names[o.region as usize], d);
        if let Some(p) = parent {
            self.put(names[p.region as usize], -d);
        }
    }

    fn put(&mut self, name: u32, d: i64) {
        match self.sums.iter_mut().find(|x| x.0 == name) {
            Some(x) => x.1 += d,
            None => self.sums.push((name, d)),
        }
    }
}

/// The third walk's range queries, handed out a block's window at a time, and where the finished ranges'
/// sums go.
pub(super) struct Ranges<'a, 'r, 's> {
    pub room: &'r mut Room<'s>,
    pub queries: Reader<'a, RangeQuery>,
    pub next: Option<RangeQuery>,
    pub parts: Sorter<Part>,
}

impl Ranges<'_, '_, '_> {
    /// Block `b`'s range queries of window `w` (in order) to `out`.
    fn window(&mut self, b: u32, w: u32, out: &mut Vec<RangeQuery>) -> Result<(), String> {
        loop {
            if self.next.is_none() {
                self.next = self.queries.next(&*self.room.spill)?;
            }
            match self.next {
                Some(q) if (q.block, q.window) == (b, w) => {
                    out.push(q);
                    self.next = None;
                }
                _ => return Ok(()),
            }
        }
    }

    fn done(&mut self, a: Active) -> Result<(), String> {
        for (name, d) in a.sums {
            if d != 0 {
                self.parts.push(Part { wait: a.q.wait, name, ns: a.q.sign() * d }, self.room)?;
            }
        }
        Ok(())
    }

    /// A range query left after every block was walked (on no block's locations or past the last window).
    pub fn left(&mut self) -> Result<Option<RangeQuery>, String> {
        if self.next.is_none() {
            self.next = self.queries.next(&*self.room.spill)?;
        }
        Ok(self.next)
    }
}

/// Block `b`'s range queries summed as its tiles are walked; each finished range's sums to `ranges`.
pub(super) fn ranges_of_block(
    m: &Manifest,
    b: u32,
    tiles: &[&TileEntry],
    read: super::ReadTile,
    names: &[u32],
    ranges: &mut Ranges,
) -> Result<(), String> {
    let t = &m.tiling;
    let nl = m.locations.process.len() as u32;
    let locs = t.block_range(b, nl);
    let mut sweeps: Vec<Sweep> = (0..locs.len()).map(|_| Sweep::default()).collect();
    let mut active: Vec<Vec<Active>> = (0..locs.len()).map(|_| Vec::new()).collect();
    let mut tile_at = 0usize;
    let mut queries: Vec<RangeQuery> = Vec::new();
    for w in 0..t.windows {
        let mut own: Vec<(usize, Open)> = Vec::new();
        if tile_at < tiles.len() && tiles[tile_at].window == w {
            let e = tiles[tile_at];
            tile_at += 1;
            let bytes = read(&e.path)?;
            let (_, payload) =
                unframe_tile(&bytes, m.version as u8, MAX_TILE_RAW).map_err(|c| format!("{}: {c}", e.path))?;
            let tile =
                decode_events(&payload, locs.clone(), t.window_span(w), m).map_err(|c| format!("{}: {c}", e.path))?;
            // (The intervals' trace indexes are not needed here.)
            for &TileInterval { location: l, region, start_ns: start, dur_ns: dur, depth } in &tile.intervals {
                own.push((
                    (l.0 - locs.start) as usize,
                    Open { index: 0, region: region.0, start, end: start + dur, depth },
                ));
            }
        }
        queries.clear();
        ranges.window(b, w, &mut queries)?;
        let (mut q, q_end) = (0usize, queries.len());
        let mut at = 0usize;
        for k in 0..locs.len() {
            let l = locs.start + k as u32;
            let i_end = at + own[at..].partition_point(|x| x.0 == k);
            let (sweep, act) = (&mut sweeps[k], &mut active[k]);
            let mut i = at;
            loop {
                let next_a = (q < q_end && queries[q].location == l).then(|| queries[q].a);
                let next_s = (i < i_end).then(|| own[i].1.start);
                match (next_a, next_s) {
                    (None, None) => break,
                    // A range opens once the intervals starting before it are pushed: those open at `a` count.
                    (Some(a), s) if s.is_none_or(|s| a <= s) => {
                        let mut x = Active { q: queries[q], sums: Default::default() };
                        q += 1;
                        open_chain(sweep, a, |o, p| x.add(names, o, p));
                        act.push(x);
                    }
                    _ => {
                        let o = own[i].1;
                        i += 1;
                        // Ranges that ended before it are done.
                        let mut j = 0;
                        while j < act.len() {
                            if act[j].q.b <= o.start {
                                ranges.done(act.swap_remove(j))?;
                            } else {
                                j += 1;
                            }
                        }
                        sweep.push(o);
                        if !act.is_empty() {
                            let parent = sweep.parent_of_top();
                            for x in act.iter_mut() {
                                x.add(names, &o, parent);
                            }
                        }
                    }
                }
            }
            at = i_end;
        }
        if q != q_end {
            return Err(format!("block {b}: a range outside the block's locations (waits)"));
        }
    }
    for act in active {
        for x in act {
            ranges.done(x)?;
        }
    }
    Ok(())
}

/// The intervals open at `a` that started before it (the top's chain from the first ending after `a`), each
/// with its parent, to `f`: `diagnosis::root_causes::exclusive`'s first part.
fn open_chain(sweep: &Sweep, a: u64, mut f: impl FnMut(&Open, Option<Open>)) {
    let st = &sweep.stack;
    let mut k = st.len();
    // The last interval pushed, then its parents, until one ends after `a`.
    let mut found = None;
    while k > 0 {
        k -= 1;
        let Some(o) = st[k] else { return };
        if o.end > a {
            found = Some(k);
            break;
        }
    }
    let Some(mut k) = found else { return };
    loop {
        let Some(o) = st[k] else { return };
        // Its parent: the first entry below of another interval (gaps hold copies of the one above).
        let mut j = k;
        let parent = loop {
            if j == 0 {
                break None;
            }
            j -= 1;
            match st[j] {
                Some(p) if same(&p, &o) => continue,
                p => break p,
            }
        };
        f(&o, parent);
        match parent {
            Some(_) => k = j,
            None => return,
        }
    }
}

/// The same interval (a copy on the stack filling a gap in depths).
fn same(a: &Open, b: &Open) -> bool {
    a.start == b.start && a.end == b.end && a.depth == b.depth && a.region == b.region
}
