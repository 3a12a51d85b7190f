//! Warnings a reader or the builder raised while repairing input: counted per kind, with the first few
//! examples kept verbatim (a trace with a million unmatched ends must not hold a million strings).
//! Each kind says what it means for the view ([`WarningKind::effect`]): a benign repair (everything read is
//! shown, put in order) or data left out (records not shown). `weft info` and the page's header group by it.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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
    /// Grains whose parents form a cycle (a task its own ancestor); each cycle is cut and its grains drawn
    /// under the program's root. The example names the cycle's tasks.
    ParentCycle,
    /// An end that named another region than the innermost open one, which it closed (OTF2: APEX writes
    /// such LEAVEs).
    MisnamedEnd,
    /// Several files read as one run (a rank per file): the example says how many and how their clocks were
    /// aligned.
    Merged,
}

/// What a kind of warning means for the view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningEffect {
    /// Records were not shown (skipped, dropped, or cut off with the file): the view has less than the run.
    LeftOut,
    /// Everything read is shown, after a repair (sorted, clipped, closed).
    Repaired,
}

impl WarningEffect {
    /// The stable name (the JSON value): `left_out`, `repaired`.
    pub fn name(self) -> &'static str {
        match self {
            WarningEffect::LeftOut => "left_out",
            WarningEffect::Repaired => "repaired",
        }
    }
}

impl WarningKind {
    /// What the kind means for the view, and a one-line explanation. A new kind needs only its arm here.
    pub fn describe(self) -> (WarningEffect, &'static str) {
        use WarningEffect::*;
        match self {
            WarningKind::UnmatchedEnd => (LeftOut, "an end with no begin before it was ignored"),
            WarningKind::UnclosedBegin => {
                (Repaired, "a region never left is shown up to the last event of its location")
            }
            WarningKind::MismatchedEnd => (Repaired, "an end that skipped open regions closed them too, at its time"),
            WarningKind::ImproperNesting => {
                (Repaired, "a region that outlasted its parent is clipped to the parent's end")
            }
            WarningKind::OutOfOrder => (Repaired, "events out of time order were sorted"),
            WarningKind::Truncated => (LeftOut, "the file ends early; what it held up to there is shown"),
            WarningKind::MalformedRecord => (LeftOut, "a record that could not be read was skipped"),
            WarningKind::UnknownRecord => (LeftOut, "a record of a type this reader does not know was skipped"),
            WarningKind::BadTimestamp => (LeftOut, "a record with a NaN, infinite or negative time was skipped"),
            WarningKind::UnmatchedFlow => (LeftOut, "a message or flow with one end missing is not drawn"),
            WarningKind::DanglingReference => (
                LeftOut,
                "a record names an undefined id: shown under a stand-in name where one can be made, else left out",
            ),
            WarningKind::Other => (LeftOut, "something else could not be used as written; the example says what"),
            WarningKind::ParentCycle => {
                (Repaired, "tasks whose parents form a cycle are drawn under the program's root, the cycle cut")
            }
            WarningKind::MisnamedEnd => {
                (Repaired, "an end that named another region than the innermost open one closed that one")
            }
            WarningKind::Merged => (
                Repaired,
                "several files were read as the ranks of one run; the example says how their clocks were aligned",
            ),
        }
    }

    pub fn effect(self) -> WarningEffect {
        self.describe().0
    }

    pub fn meaning(self) -> &'static str {
        self.describe().1
    }

    /// The stable name (the JSON value), e.g. `unmatched_end`.
    pub fn name(self) -> String {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    }
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
    pub const EXAMPLES_PER_KIND: usize = 5;

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

    /// How many warnings of the kinds with this effect.
    pub fn total_with(&self, effect: WarningEffect) -> u64 {
        self.counts.iter().filter(|(k, _)| k.effect() == effect).fold(0u64, |sum, (_, n)| sum.saturating_add(*n))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_says_what_it_means_for_the_view() {
        use WarningKind::*;
        for k in [OutOfOrder, ImproperNesting, UnclosedBegin, MismatchedEnd, MisnamedEnd] {
            assert_eq!(k.effect(), WarningEffect::Repaired, "{k:?}");
        }
        for k in [UnmatchedEnd, Truncated, MalformedRecord, UnknownRecord, BadTimestamp, UnmatchedFlow] {
            assert_eq!(k.effect(), WarningEffect::LeftOut, "{k:?}");
        }
        assert_eq!(UnmatchedFlow.name(), "unmatched_flow");
        assert_eq!(WarningEffect::LeftOut.name(), serde_json::to_value(WarningEffect::LeftOut).unwrap());
        let mut w = Warnings::default();
        w.push(OutOfOrder, || "a".into());
        w.add_count(OutOfOrder, 11);
        w.push(UnmatchedFlow, || "b".into());
        w.add_count(Truncated, u64::MAX);
        assert_eq!(w.total_with(WarningEffect::Repaired), 12);
        assert_eq!(w.total_with(WarningEffect::LeftOut), u64::MAX, "saturates");
    }
}
