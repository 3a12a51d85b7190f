//! Warnings a reader or the builder raised while repairing input: counted per kind, with the first few
//! examples kept verbatim (a trace with a million unmatched ends must not hold a million strings).

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// An end without a matching begin; dropped.
    UnmatchedEnd,
    /// A begin that never ended; closed at the end of its location's last event.
    UnclosedBegin,
    /// An end that named a different slice than the innermost open one.
    MismatchedEnd,
    /// A child that outlasted its parent; clipped to the parent's end.
    ImproperNesting,
    /// Events out of time order on one location; sorted.
    OutOfOrder,
    /// The file ended before the trace did (a truncated file); what came before is kept.
    Truncated,
    /// A record or field that is malformed; the record is skipped.
    MalformedRecord,
    /// A record type this reader does not know; skipped.
    UnknownRecord,
    /// A timestamp that is NaN, infinite or negative; the record is skipped.
    BadTimestamp,
    /// A flow or message with one end missing; dropped.
    UnmatchedFlow,
    /// A reference to an id that was never defined.
    DanglingReference,
    /// Anything else worth telling.
    Other,
}

#[derive(Clone, Debug, Serialize)]
pub struct Warning {
    pub kind: WarningKind,
    pub message: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Warnings {
    counts: Vec<(WarningKind, u64)>,
    examples: Vec<Warning>,
}

impl Warnings {
    const EXAMPLES_PER_KIND: usize = 5;

    pub fn push(&mut self, kind: WarningKind, message: impl FnOnce() -> String) {
        let n = match self.counts.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.counts.push((kind, 1));
                1
            }
        };
        if n as usize <= Self::EXAMPLES_PER_KIND {
            self.examples.push(Warning { kind, message: message() });
        }
    }

    /// Counts saturate: they may come from a decoded buffer, which can claim anything.
    pub fn add_count(&mut self, kind: WarningKind, extra: u64) {
        if extra == 0 {
            return;
        }
        match self.counts.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n = n.saturating_add(extra),
            None => self.counts.push((kind, extra)),
        }
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().fold(0u64, |sum, (_, n)| sum.saturating_add(*n))
    }

    pub fn count(&self, kind: WarningKind) -> u64 {
        self.counts.iter().find(|(k, _)| *k == kind).map_or(0, |(_, n)| *n)
    }

    pub fn counts(&self) -> &[(WarningKind, u64)] {
        &self.counts
    }

    pub fn examples(&self) -> &[Warning] {
        &self.examples
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Replace the kept examples (the codec restores them as they were).
    pub fn set_examples(&mut self, examples: Vec<Warning>) {
        self.examples = examples;
    }

    pub fn merge(&mut self, other: Warnings) {
        for (k, n) in other.counts {
            self.add_count(k, n);
        }
        for w in other.examples {
            if self.examples.iter().filter(|e| e.kind == w.kind).count() < Self::EXAMPLES_PER_KIND {
                self.examples.push(w);
            }
        }
    }
}
