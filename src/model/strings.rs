//! Interned strings: every name in a trace is stored once and referred to by a `StringId`.

use serde::Serialize;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub struct StringId(pub u32);

impl StringId {
    /// The empty string, always interned first.
    pub const EMPTY: StringId = StringId(0);
}

#[derive(Clone, Debug)]
pub struct StringTable {
    strings: Vec<Box<str>>,
    index: HashMap<Box<str>, u32>,
}

impl Default for StringTable {
    fn default() -> Self {
        let mut t = StringTable { strings: Vec::new(), index: HashMap::new() };
        t.intern("");
        t
    }
}

impl StringTable {
    pub fn intern(&mut self, s: &str) -> StringId {
        if let Some(&i) = self.index.get(s) {
            return StringId(i);
        }
        let i = self.strings.len() as u32;
        let boxed: Box<str> = s.into();
        self.strings.push(boxed.clone());
        self.index.insert(boxed, i);
        StringId(i)
    }

    pub fn lookup(&self, s: &str) -> Option<StringId> {
        self.index.get(s).map(|&i| StringId(i))
    }

    pub fn get(&self, id: StringId) -> &str {
        self.strings.get(id.0 as usize).map_or("", |s| s)
    }

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.len() <= 1
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.strings.iter().map(|s| &**s)
    }
}
