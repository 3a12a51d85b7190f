//! Interned strings: every name in a trace is stored once and referred to by a `StringId`.
//!
//! The table is shared by its clones until one of them interns a new string (copy on write): a store's
//! definitions hold a few strings per location (60,013 for 20,000 ranks), and the page's exact answers,
//! the store worker's slices and the views each take a `Trace` with the same ones, so a clone costs a
//! reference count, not a copy of every name (4-10 ms natively at 20,000 ranks, BENCHMARKS.md "Session 34").

use rustc_hash::FxHashMap;
use serde::Serialize;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub struct StringId(pub u32);

impl StringId {
    /// The empty string, always interned first.
    pub const EMPTY: StringId = StringId(0);
}

#[derive(Clone, Debug)]
pub struct StringTable {
    table: Arc<Table>,
}

#[derive(Clone, Debug, Default)]
struct Table {
    strings: Vec<Box<str>>,
    index: FxHashMap<Box<str>, u32>,
    /// The strings' bytes together.
    bytes: u64,
}

impl Default for StringTable {
    fn default() -> Self {
        let mut t = StringTable { table: Arc::default() };
        t.intern("");
        t
    }
}

impl StringTable {
    pub fn intern(&mut self, s: &str) -> StringId {
        if let Some(&i) = self.table.index.get(s) {
            return StringId(i);
        }
        // A table shared with clones is copied here, before its first new string.
        let t = Arc::make_mut(&mut self.table);
        let i = t.strings.len() as u32;
        let boxed: Box<str> = s.into();
        t.bytes += s.len() as u64;
        t.strings.push(boxed.clone());
        t.index.insert(boxed, i);
        StringId(i)
    }

    /// A table of `strings`, the first of them the empty string, each once: a decoder's (`model::codec`),
    /// built at its length. None where one repeats or the first is not "" (the ids would not be the order's).
    pub fn from_unique(strings: Vec<Box<str>>) -> Option<StringTable> {
        if strings.first().is_none_or(|s| !s.is_empty()) {
            return None;
        }
        let mut index = FxHashMap::default();
        index.reserve(strings.len());
        let mut bytes = 0;
        for (i, s) in strings.iter().enumerate() {
            bytes += s.len() as u64;
            if index.insert(s.clone(), i as u32).is_some() {
                return None;
            }
        }
        Some(StringTable { table: Arc::new(Table { strings, index, bytes }) })
    }

    /// Whether `self` and `other` are one table shared (a clone of the other, neither interned since).
    pub fn shares(&self, other: &StringTable) -> bool {
        Arc::ptr_eq(&self.table, &other.table)
    }

    pub fn lookup(&self, s: &str) -> Option<StringId> {
        self.table.index.get(s).map(|&i| StringId(i))
    }

    pub fn get(&self, id: StringId) -> &str {
        self.table.strings.get(id.0 as usize).map_or("", |s| s)
    }

    pub fn len(&self) -> usize {
        self.table.strings.len()
    }

    /// The strings' bytes together, kept as they are interned: a streamed read checks what it holds after
    /// every location, and summing 300,000 names there each time made reading 100,000 ranks quadratic
    /// (10.5 s, BENCHMARKS.md "Session 34").
    pub fn bytes(&self) -> u64 {
        self.table.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.table.strings.len() <= 1
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.table.strings.iter().map(|s| &**s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_shares_the_table_until_it_interns_a_new_string() {
        let mut a = StringTable::default();
        let x = a.intern("MPI Rank 0");
        let mut b = a.clone();
        assert!(b.shares(&a));
        // Interning a string it has already changes nothing.
        assert_eq!(b.intern("MPI Rank 0"), x);
        assert!(b.shares(&a));
        let y = b.intern("MPI Rank 1");
        assert!(!b.shares(&a));
        assert_eq!((b.get(y), b.len(), a.len()), ("MPI Rank 1", 3, 2));
        assert_eq!((a.bytes(), b.bytes()), (10, 20));
        assert_eq!(a.lookup("MPI Rank 1"), None);
        assert_eq!(a.get(x), "MPI Rank 0");
    }

    #[test]
    fn a_table_from_unique_strings_keeps_their_order_and_refuses_repeats() {
        let t = StringTable::from_unique(vec!["".into(), "a".into(), "b".into()]).unwrap();
        assert_eq!((t.lookup("b"), t.get(StringId(1)), t.len(), t.bytes()), (Some(StringId(2)), "a", 3, 2));
        assert!(StringTable::from_unique(vec!["".into(), "a".into(), "a".into()]).is_none());
        assert!(StringTable::from_unique(vec!["a".into()]).is_none());
        assert!(StringTable::from_unique(Vec::new()).is_none());
    }
}
