//! A track event's debug annotations as the model's args: each annotation a pair named by its `name` or its
//! interned `name_iid`; a dict's entries flattened under `parent.key`, an array's under `parent[i]`, as the
//! trace processor names them. Numbers and booleans are `Number`, strings (inline or interned) `Text`, legacy
//! JSON values `Json`. Values longer than the model keeps are cut the way the Chrome reader cuts them.
//!
//! It must not touch the builder's tables (the converter pushes the pairs) and must not fail: an iid the
//! sequence never interned names its pair `(iid N)` and is counted.

use super::protos::DebugAnnotation;
use rustc_hash::FxHashMap as FxMap;
use weft_model::args::MAX_VALUE_CHARS;
use weft_model::ArgKind;

/// How deep dicts and arrays are followed (prost's own recursion limit is 100; pairs past this are dropped).
const MAX_DEPTH: usize = 16;

/// One event's pairs as they are gathered: keys and values as text, reused from event to event.
#[derive(Default)]
pub struct Pairs {
    pub pairs: Vec<(String, ArgKind, String)>,
    /// Names or string values given by an iid the sequence had not interned.
    pub dangling: u64,
}

/// The interned strings annotations may name (a sequence's).
pub struct Lookup<'a> {
    pub names: &'a FxMap<u64, Box<str>>,
    pub strings: &'a FxMap<u64, Box<str>>,
}

impl Pairs {
    pub fn gather(&mut self, annotations: &[DebugAnnotation], lookup: &Lookup) {
        self.pairs.clear();
        for a in annotations {
            let key = self.name(a, lookup);
            self.one(key, a, lookup, 0);
        }
    }

    fn name(&mut self, a: &DebugAnnotation, lookup: &Lookup) -> String {
        if let Some(n) = &a.name {
            return n.clone();
        }
        match a.name_iid {
            Some(iid) => match lookup.names.get(&iid) {
                Some(n) => n.to_string(),
                None => {
                    self.dangling += 1;
                    format!("(iid {iid})")
                }
            },
            None => String::from("(unnamed)"),
        }
    }

    fn one(&mut self, key: String, a: &DebugAnnotation, lookup: &Lookup, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        if !a.dict_entries.is_empty() {
            for e in &a.dict_entries {
                let k = format!("{key}.{}", self.name(e, lookup));
                self.one(k, e, lookup, depth + 1);
            }
            return;
        }
        if !a.array_values.is_empty() {
            for (i, e) in a.array_values.iter().enumerate() {
                self.one(format!("{key}[{i}]"), e, lookup, depth + 1);
            }
            return;
        }
        let (kind, value) = if let Some(b) = a.bool_value {
            (ArgKind::Number, b.to_string())
        } else if let Some(u) = a.uint_value {
            (ArgKind::Number, u.to_string())
        } else if let Some(i) = a.int_value {
            (ArgKind::Number, i.to_string())
        } else if let Some(d) = a.double_value {
            (ArgKind::Number, if d.is_finite() { d.to_string() } else { format!("\"{d}\"") })
        } else if let Some(p) = a.pointer_value {
            (ArgKind::Text, format!("0x{p:x}"))
        } else if let Some(s) = &a.string_value {
            (ArgKind::Text, cut(s))
        } else if let Some(iid) = a.string_value_iid {
            match lookup.strings.get(&iid) {
                Some(s) => (ArgKind::Text, cut(s)),
                None => {
                    self.dangling += 1;
                    (ArgKind::Text, format!("(iid {iid})"))
                }
            }
        } else if let Some(j) = &a.legacy_json_value {
            (ArgKind::Json, cut(j))
        } else {
            // A nested (legacy) or proto value: its presence is told, its content is not read.
            (ArgKind::Text, String::from("(not read)"))
        };
        self.pairs.push((cut(&key), kind, value));
    }
}

/// `s`, cut to the characters a value keeps, ending in "…" when cut.
fn cut(s: &str) -> String {
    if s.len() <= MAX_VALUE_CHARS || s.chars().count() <= MAX_VALUE_CHARS {
        return s.to_string();
    }
    s.chars().take(MAX_VALUE_CHARS).chain(['…']).collect()
}
