//! Event arguments (Chrome `args`: a kernel's grid, a launch's correlation id, an op's input shapes): the
//! key/value pairs a reader keeps of an event, for the timeline's hover.
//!
//! Sparse, so that an event without args costs nothing: [`EventArgs`] beside a table (intervals, instants)
//! lists only the events that have args, by index in that table, ascending, each with its entry in an
//! [`ArgTable`]. The table holds every entry's pairs as columns: the key (interned in the trace's strings,
//! where keys repeat), the value's kind, and the value's text in one arena (`text`, ends as `u32`).
//! Entries need not be in event order (a B/E pair's merged entry is made after both), so an event refers to
//! its entry by number and the builder's sort moves only the (event, entry) pairs.
//!
//! What one event keeps is bounded, so hostile input cannot make it large: [`MAX_PAIRS`] pairs (the rest
//! counted in a [`ArgKind::Cut`] pair), values and keys cut at [`MAX_VALUE_CHARS`] characters (ending in
//! "…"); a whole table stops taking entries at [`MAX_TEXT_BYTES`] of text or [`MAX_TABLE_PAIRS`] pairs (the
//! reader warns). It must not parse anything: readers flatten values to text (`readers::chrome::args`).

use super::StringId;

/// Pairs one event keeps; more are counted in one [`ArgKind::Cut`] pair.
pub const MAX_PAIRS: usize = 32;
/// Characters a value (or key) keeps; a longer one is cut and ends in "…".
pub const MAX_VALUE_CHARS: usize = 256;
/// Text one table holds before it takes no more entries.
pub const MAX_TEXT_BYTES: usize = 256 << 20;
/// Pairs one table holds before it takes no more entries.
pub const MAX_TABLE_PAIRS: usize = 16 << 20;

/// What a pair's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ArgKind {
    /// A string, as its decoded text.
    Text = 0,
    /// A number or a literal (true, false, null), as written.
    Number = 1,
    /// An object or an array, as compact JSON (`[[8,3],[3]]`).
    Json = 2,
    /// Not a pair: the value says how many pairs were not kept (the key is empty).
    Cut = 3,
}

impl ArgKind {
    pub const ALL: [ArgKind; 4] = [ArgKind::Text, ArgKind::Number, ArgKind::Json, ArgKind::Cut];

    pub fn from_code(c: u8) -> Option<ArgKind> {
        ArgKind::ALL.into_iter().find(|&k| k as u8 == c)
    }
}

/// One pair of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arg<'a> {
    pub key: StringId,
    pub kind: ArgKind,
    pub value: &'a str,
}

/// Entries of pairs, numbered from 0 in the order they were pushed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArgTable {
    /// For each entry, the end of its pairs in the pair columns (its start is the previous entry's end).
    pub pairs_end: Vec<u32>,
    pub key: Vec<StringId>,
    pub kind: Vec<ArgKind>,
    /// For each pair, the end of its value in `text` (its start is the previous pair's end).
    pub value_end: Vec<u32>,
    pub text: String,
}

impl ArgTable {
    /// Entries in the table.
    pub fn len(&self) -> usize {
        self.pairs_end.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs_end.is_empty()
    }

    /// The pairs of entry `e` (none for an entry out of range).
    pub fn entry(&self, e: usize) -> impl Iterator<Item = Arg<'_>> + '_ {
        let end = self.pairs_end.get(e).map_or(0, |&x| x as usize);
        let start = if e == 0 || e > self.pairs_end.len() { 0 } else { self.pairs_end[e - 1] as usize };
        let start = start.min(end);
        (start..end).map(move |p| Arg { key: self.key[p], kind: self.kind[p], value: self.value(p) })
    }

    fn value(&self, p: usize) -> &str {
        let start = if p == 0 { 0 } else { self.value_end[p - 1] as usize };
        self.text.get(start..self.value_end[p] as usize).unwrap_or("")
    }

    /// Whether `pairs` more pairs and `bytes` more text fit under the table's bounds.
    pub fn has_room(&self, pairs: usize, bytes: usize) -> bool {
        self.key.len() + pairs <= MAX_TABLE_PAIRS && self.text.len() + bytes <= MAX_TEXT_BYTES
    }

    /// A new entry of `pairs` (at most [`MAX_PAIRS`] and a cut are kept: the rest are counted in the cut);
    /// None, adding nothing, when the table is full.
    pub fn push<'a>(&mut self, pairs: impl IntoIterator<Item = (StringId, ArgKind, &'a str)> + Clone) -> Option<u32> {
        let (mut n, mut bytes, mut cut) = (0usize, 0usize, 0u64);
        for (_, kind, value) in pairs.clone() {
            if kind == ArgKind::Cut {
                cut += value.split(' ').next().and_then(|c| c.parse::<u64>().ok()).unwrap_or(0);
            } else if n < MAX_PAIRS {
                n += 1;
                bytes += value.len();
            } else {
                cut += 1;
            }
        }
        let cut_text = (cut > 0).then(|| cut_note(cut));
        let extra = cut_text.as_ref().map_or(0, |t| t.len());
        if !self.has_room(n + 1, bytes + extra) {
            return None;
        }
        for (key, kind, value) in pairs.into_iter().filter(|p| p.1 != ArgKind::Cut).take(MAX_PAIRS) {
            self.push_pair(key, kind, value);
        }
        if let Some(t) = cut_text {
            self.push_pair(StringId::EMPTY, ArgKind::Cut, &t);
        }
        self.pairs_end.push(self.key.len() as u32);
        Some(self.pairs_end.len() as u32 - 1)
    }

    fn push_pair(&mut self, key: StringId, kind: ArgKind, value: &str) {
        self.text.push_str(value);
        self.key.push(key);
        self.kind.push(kind);
        self.value_end.push(self.text.len() as u32);
    }

    /// A new entry: `a`'s pairs with `b`'s values for the keys both have, then `b`'s other pairs (Chrome
    /// merges an E event's args into its B's so). None when the table is full.
    pub fn merge(&mut self, a: u32, b: u32) -> Option<u32> {
        let (a, b): (Vec<Arg>, Vec<Arg>) = (self.entry(a as usize).collect(), self.entry(b as usize).collect());
        let mut out: Vec<(StringId, ArgKind, String)> = Vec::with_capacity(a.len() + b.len());
        for p in a.iter().chain(&b) {
            match out.iter_mut().find(|q| q.0 == p.key && q.1 != ArgKind::Cut && p.kind != ArgKind::Cut) {
                Some(q) => {
                    q.1 = p.kind;
                    q.2 = p.value.to_string();
                }
                None => out.push((p.key, p.kind, p.value.to_string())),
            }
        }
        self.push(out.iter().map(|(k, kind, v)| (*k, *kind, v.as_str())))
    }

    pub fn heap_bytes(&self) -> usize {
        self.pairs_end.capacity() * 4
            + self.key.capacity() * 4
            + self.kind.capacity()
            + self.value_end.capacity() * 4
            + self.text.capacity()
    }
}

/// The value of a [`ArgKind::Cut`] pair.
pub fn cut_note(n: u64) -> String {
    format!("{n} more args not kept")
}

/// The args of some events of one table (intervals or instants).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventArgs {
    /// Indices of the events that have args, ascending.
    pub event: Vec<u32>,
    /// Each one's entry in `table`.
    pub entry: Vec<u32>,
    pub table: ArgTable,
}

impl EventArgs {
    /// Events that have args.
    pub fn len(&self) -> usize {
        self.event.len()
    }

    pub fn is_empty(&self) -> bool {
        self.event.is_empty()
    }

    /// The pairs of event `i`, or None when it has no args.
    pub fn of(&self, i: usize) -> Option<impl Iterator<Item = Arg<'_>> + '_> {
        let k = self.event.binary_search(&u32::try_from(i).ok()?).ok()?;
        Some(self.table.entry(self.entry[k] as usize))
    }

    pub fn heap_bytes(&self) -> usize {
        self.event.capacity() * 4 + self.entry.capacity() * 4 + self.table.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(t: &ArgTable, e: u32) -> Vec<(u32, ArgKind, String)> {
        t.entry(e as usize).map(|a| (a.key.0, a.kind, a.value.to_string())).collect()
    }

    #[test]
    fn entries_keep_their_pairs_and_merge_with_the_later_value() {
        let mut t = ArgTable::default();
        let a = t.push([(StringId(1), ArgKind::Number, "1"), (StringId(2), ArgKind::Text, "x")]).unwrap();
        let e = t.push([]).unwrap();
        let b = t.push([(StringId(2), ArgKind::Json, "[1]"), (StringId(3), ArgKind::Text, "")]).unwrap();
        assert_eq!(pairs(&t, e), vec![]);
        let m = t.merge(a, b).unwrap();
        assert_eq!(
            pairs(&t, m),
            vec![(1, ArgKind::Number, "1".into()), (2, ArgKind::Json, "[1]".into()), (3, ArgKind::Text, String::new())]
        );
        assert_eq!(pairs(&t, a)[1], (2, ArgKind::Text, "x".into()));
        assert!(t.entry(99).next().is_none());
    }

    #[test]
    fn an_entry_keeps_at_most_max_pairs_and_counts_the_rest() {
        let mut t = ArgTable::default();
        let many: Vec<(StringId, ArgKind, &str)> = (0..40).map(|k| (StringId(k), ArgKind::Number, "7")).collect();
        let a = t.push(many.iter().copied()).unwrap();
        let p = pairs(&t, a);
        assert_eq!(p.len(), MAX_PAIRS + 1);
        assert_eq!(p[MAX_PAIRS], (0, ArgKind::Cut, "8 more args not kept".into()));
        // Merging two cut entries adds their counts and cuts again.
        let m = t.merge(a, a).unwrap();
        assert_eq!(pairs(&t, m)[MAX_PAIRS], (0, ArgKind::Cut, "16 more args not kept".into()));
    }

    #[test]
    fn events_find_their_entries() {
        let mut args = EventArgs::default();
        let e = args.table.push([(StringId(4), ArgKind::Text, "v")]).unwrap();
        args.event = vec![3, 9];
        args.entry = vec![e, e];
        assert_eq!(args.of(9).map(|p| p.count()), Some(1));
        assert!(args.of(4).is_none());
        assert!(args.of(usize::MAX).is_none());
    }
}
