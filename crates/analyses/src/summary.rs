//! The trace summary behind `weft info`: counts, span, and the regions with the most inclusive time.
//! The JSON keys are a stable interface (scripts depend on them): add keys, never rename. The page's header
//! shows this same summary (the worker sends it), warnings grouped by what they mean for the view.

use super::moments::TimeWindow;
use super::profile::region_stats;
use serde::Serialize;
use weft_model::sort::SortDyn;
use weft_model::{MessageKind, RegionId, Trace, WarningEffect, WarningKind, Warnings};

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RegionTotal {
    pub name: String,
    pub count: u64,
    /// Time inside the region, counting recursive activations once (outermost only), summed over locations.
    pub inclusive_ns: u64,
}

/// The warnings of one kind: how many, what they mean for the view, and the first few messages.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WarningGroup {
    pub kind: WarningKind,
    pub effect: WarningEffect,
    pub count: u64,
    pub meaning: &'static str,
    pub examples: Vec<String>,
}

/// Warnings by kind: data left out first, then repairs; within each, the most frequent first.
pub fn warning_groups(w: &Warnings) -> Vec<WarningGroup> {
    let mut groups: Vec<WarningGroup> = w
        .counts()
        .iter()
        .map(|&(kind, count)| WarningGroup {
            kind,
            effect: kind.effect(),
            count,
            meaning: kind.meaning(),
            examples: w.examples().iter().filter(|e| e.kind == kind).map(|e| e.message.clone()).collect(),
        })
        .collect();
    groups.sort_dyn_by(|a, b| a.effect.cmp(&b.effect).then(b.count.cmp(&a.count)).then(a.kind.cmp(&b.kind)));
    groups
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TraceSummary {
    pub format: &'static str,
    pub locations: usize,
    pub processes: usize,
    pub intervals: usize,
    pub messages: usize,
    pub warnings: u64,
    pub span_ns: u64,
    pub top_regions: Vec<RegionTotal>,
    /// Event records read from the file.
    pub events: u64,
    /// Collective operations (distinct operation instances).
    pub collectives: usize,
    pub flows: usize,
    pub instants: usize,
    pub counters: usize,
    /// Of `warnings`, those whose records are not shown.
    pub warnings_left_out: u64,
    /// Of `warnings`, the benign repairs (everything read is shown).
    pub warnings_repaired: u64,
    pub warning_kinds: Vec<WarningGroup>,
}

/// Per-region (count, inclusive time), indexed by region: the whole-trace case of the region profile
/// (`profile::region_stats`), so the top regions and `weft info --json`'s `regions` agree.
pub fn region_totals(trace: &Trace) -> Vec<(u64, u64)> {
    region_stats(trace, TimeWindow::whole(trace), |_| true).into_iter().map(|s| (s.count, s.inclusive_ns)).collect()
}

/// The counts a summary shows besides the definitions: a trace has them in its columns, a store in its
/// manifest ([`summarize_parts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SummaryCounts {
    pub intervals: usize,
    /// Point-to-point messages (flows not included).
    pub messages: usize,
    pub flows: usize,
    pub collectives: usize,
    pub instants: usize,
    pub events: u64,
}

impl SummaryCounts {
    pub fn of(trace: &Trace) -> Self {
        let flows = trace.messages.kind.iter().filter(|&&k| k == MessageKind::Flow).count();
        SummaryCounts {
            intervals: trace.intervals.len(),
            messages: trace.messages.len() - flows,
            flows,
            collectives: trace.collectives.operations(),
            instants: trace.instants.time_ns.len(),
            events: trace.event_records,
        }
    }
}

pub fn summarize(trace: &Trace, top: usize) -> TraceSummary {
    summarize_parts(trace, &region_totals(trace), SummaryCounts::of(trace), top)
}

/// The summary from a trace's definitions and warnings, its [`region_totals`] and counts: the events
/// themselves are not read (a store's manifest holds these).
pub fn summarize_parts(trace: &Trace, totals: &[(u64, u64)], counts: SummaryCounts, top: usize) -> TraceSummary {
    let mut ranked: Vec<usize> = (0..totals.len()).filter(|&r| totals[r].0 > 0).collect();
    ranked.sort_dyn_by(|&a, &b| {
        totals[b]
            .1
            .cmp(&totals[a].1)
            .then(totals[b].0.cmp(&totals[a].0))
            .then_with(|| trace.region_name(RegionId(a as u32)).cmp(trace.region_name(RegionId(b as u32))))
    });
    let top_regions = ranked
        .into_iter()
        .take(top)
        .map(|r| RegionTotal {
            name: trace.region_name(RegionId(r as u32)).to_string(),
            count: totals[r].0,
            inclusive_ns: totals[r].1,
        })
        .collect();
    TraceSummary {
        format: trace.format.name(),
        locations: trace.locations.len(),
        processes: trace.processes.len(),
        intervals: counts.intervals,
        messages: counts.messages,
        warnings: trace.warnings.total(),
        span_ns: trace.span_ns,
        top_regions,
        events: counts.events,
        collectives: counts.collectives,
        flows: counts.flows,
        instants: counts.instants,
        counters: trace.counters.series_name.len(),
        warnings_left_out: trace.warnings.total_with(WarningEffect::LeftOut),
        warnings_repaired: trace.warnings.total_with(WarningEffect::Repaired),
        warning_kinds: warning_groups(&trace.warnings),
    }
}
