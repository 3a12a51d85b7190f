//! The comparison in one paragraph: the span's change, the three regions that explain most of it (by the
//! change of their exclusive time, which adds up to the change of the time any interval covers: inclusive
//! time counts a nest once per level), the locations whose busy time changed most, the waiting's change,
//! and how the runs were paired. Built from the [`Comparison`]'s tables only.

use super::{Align, Comparison, LocationRow};
use crate::moments::format_duration_ns;
use weft_model::sort::SortDyn;

/// A signed duration: "+1.500 ms", "-20 ns", "0 ns".
fn signed(ns: i64) -> String {
    let d = format_duration_ns(ns.unsigned_abs() as f64);
    match ns.signum() {
        1 => format!("+{d}"),
        -1 => format!("-{d}"),
        _ => d,
    }
}

fn percent(delta: i64, of: u64) -> String {
    if of == 0 {
        return "new".to_string();
    }
    format!("{:+.1} %", delta as f64 * 100.0 / of as f64)
}

fn row_name(r: &LocationRow) -> String {
    match (&r.a, &r.b) {
        (Some(a), Some(b)) if a.moments.name == b.moments.name => a.moments.name.clone(),
        (Some(a), Some(b)) => format!("{} (B: {})", a.moments.name, b.moments.name),
        (Some(a), None) => format!("{} (A only)", a.moments.name),
        (None, Some(b)) => format!("{} (B only)", b.moments.name),
        (None, None) => String::new(),
    }
}

pub(super) fn paragraph(c: &Comparison) -> String {
    let mut parts = Vec::new();
    let (a, b) = (c.span_ns.a, c.span_ns.b);
    let d = super::tables::delta(a, b);
    let what = if c.windows.is_some() { "The compared time" } else { "The span" };
    parts.push(if d == 0 {
        format!("{what} is the same in both runs ({}).", format_duration_ns(a as f64))
    } else {
        format!(
            "{what} is {} in B against {} in A ({}, {}).",
            format_duration_ns(b as f64),
            format_duration_ns(a as f64),
            signed(d),
            percent(d, a)
        )
    });
    let mut regions: Vec<_> = c.regions.iter().filter(|r| r.delta_exclusive_ns != 0).collect();
    regions.sort_dyn_by(|x, y| {
        y.delta_exclusive_ns.unsigned_abs().cmp(&x.delta_exclusive_ns.unsigned_abs()).then_with(|| x.name.cmp(&y.name))
    });
    if regions.is_empty() {
        parts.push("No region's exclusive time changed.".to_string());
    } else {
        let named: Vec<String> = regions
            .iter()
            .take(3)
            .map(|r| {
                format!(
                    "{} {} ({})",
                    r.name,
                    signed(r.delta_exclusive_ns),
                    percent(r.delta_exclusive_ns, r.a_exclusive_ns)
                )
            })
            .collect();
        parts.push(format!("The regions whose exclusive time changed most: {}.", named.join(", ")));
    }
    let mut rows: Vec<&LocationRow> = c.locations.iter().filter(|r| r.delta.busy_ns != 0).collect();
    rows.sort_dyn_by(|x, y| y.delta.busy_ns.unsigned_abs().cmp(&x.delta.busy_ns.unsigned_abs()));
    if rows.is_empty() {
        parts.push("No location's busy time changed.".to_string());
    } else {
        let named: Vec<String> =
            rows.iter().take(3).map(|r| format!("{} {}", row_name(r), signed(r.delta.busy_ns))).collect();
        let more = if rows.len() > 3 { format!(" ({} locations changed in all)", rows.len()) } else { String::new() };
        parts.push(format!("The locations whose busy time changed most: {}{more}.", named.join(", ")));
    }
    if let (Some(total), Some(per)) = (c.waits.delta_total_ns, &c.waits.delta) {
        if total != 0 || per.values().any(|&v| v != 0) {
            let mut changed: Vec<(&&str, &i64)> = per.iter().filter(|(_, &v)| v != 0).collect();
            changed.sort_dyn_by(|x, y| y.1.unsigned_abs().cmp(&x.1.unsigned_abs()).then(x.0.cmp(y.0)));
            let named: Vec<String> = changed.iter().take(3).map(|(k, &v)| format!("{k} {}", signed(v))).collect();
            parts.push(format!("Waiting changed by {} ({}).", signed(total), named.join(", ")));
        }
    }
    let la = c.locations.iter().filter(|r| r.a.is_some()).count();
    let lb = c
        .locations
        .iter()
        .filter_map(|r| r.b.as_ref().map(|b| b.moments.location))
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let align = match &c.options.align {
        Align::Start => "aligned at each run's first event".to_string(),
        a => a.describe(),
    };
    parts.push(format!("Locations paired by {} ({la} in A, {lb} in B), {align}.", c.options.ranks.name()));
    parts.join(" ")
}
