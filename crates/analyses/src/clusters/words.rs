//! The clusters said in words: which regions set a group apart ([`distinguishing`]) and the one-paragraph
//! [`summary`] ("3 clusters of 400 locations ...; rank 17 is alone: 3.0x the time in MPI_Waitall"), numbers
//! from the clustering, names from the trace. Must not compute distances or clusters.

use super::{Clustering, Distinguishing, Features, KChoice, OutlierReason};
use crate::moments::location_label;
use weft_model::Trace;

/// A region's time must differ by at least this fraction of the window to set a group apart (a ratio of two
/// tiny times says nothing).
pub const MIN_DIFFERENCE: f64 = 0.01;

/// The region columns where `group` (a mean row) differs most from `others` by ratio, at most `max`: the
/// regions it spends more time in first, each side by largest |log ratio| (time where the others have none
/// first of all).
pub fn distinguishing(trace: &Trace, f: &Features, group: &[f64], others: &[f64], max: usize) -> Vec<Distinguishing> {
    let mut rows: Vec<Distinguishing> = f
        .regions
        .iter()
        .enumerate()
        .filter(|&(c, _)| (group[c] - others[c]).abs() >= MIN_DIFFERENCE)
        .map(|(c, &r)| Distinguishing {
            region: r.0,
            name: trace.region_name(r).to_string(),
            fraction: group[c],
            others_fraction: others[c].max(0.0),
            ratio: (others[c] > 0.0).then(|| group[c] / others[c]),
        })
        .collect();
    let weight =
        |d: &Distinguishing| d.ratio.map_or(f64::INFINITY, |r| if r > 0.0 { r.ln().abs() } else { f64::INFINITY });
    // What the group does more of first: "3x the time in MPI_Waitall" says more than "no time in write".
    let more = |d: &Distinguishing| d.fraction > d.others_fraction;
    rows.sort_by(|a, b| {
        more(b)
            .cmp(&more(a))
            .then(weight(b).total_cmp(&weight(a)))
            .then((b.fraction - b.others_fraction).abs().total_cmp(&(a.fraction - a.others_fraction).abs()))
            .then(a.region.cmp(&b.region))
    });
    rows.truncate(max);
    rows
}

/// "3.0x the time in MPI_Waitall", "0.25x the time in solve", "20.0% of the time in MPI_Abort, none in the
/// others", "no time in write, the others 12.0%".
pub fn difference_words(d: &Distinguishing) -> String {
    match d.ratio {
        None => format!("{:.1}% of the time in {}, none in the others", 100.0 * d.fraction, d.name),
        Some(0.0) => format!("no time in {}, the others {:.1}%", d.name, 100.0 * d.others_fraction),
        Some(r) if r >= 1.0 => format!("{r:.1}x the time in {}", d.name),
        Some(r) => format!("{r:.2}x the time in {}", d.name),
    }
}

/// 1017 -> "1,017".
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A location as the summary names it: "location 1,017 (rank 1017 / thread 0)".
pub fn location_words(trace: &Trace, l: u32) -> String {
    format!("location {} ({})", thousands(l as usize), location_label(trace, weft_model::LocationId(l)))
}

const LISTED: usize = 5;

/// The grouping in words: how many clusters and how k was found, the largest clusters with their medoids,
/// then the outliers (at most a few named, the rest counted).
pub fn summary(trace: &Trace, c: &Clustering) -> String {
    let n = c.locations;
    let plural = |k: usize, one: &str, many: &str| if k == 1 { one.to_string() } else { many.to_string() };
    let mut s = format!(
        "{} {} of {} {}",
        c.k,
        plural(c.k, "cluster", "clusters"),
        thousands(n),
        plural(n, "location", "locations")
    );
    match (c.k_choice, c.silhouette) {
        (KChoice::Given, _) => s.push_str(" (k given)"),
        (KChoice::Silhouette, Some(sil)) => s.push_str(&format!(" (k by silhouette {sil:.2})")),
        (KChoice::One, _) if n > 1 => s.push_str(" (no grouping stands out)"),
        _ => {}
    }
    if c.k > 1 {
        let parts: Vec<String> = c
            .clusters
            .iter()
            .filter(|cl| cl.members.len() > 1)
            .take(LISTED)
            .map(|cl| {
                let mut p = format!("{} like {}", thousands(cl.members.len()), location_words(trace, cl.medoid.0));
                if let Some(d) = cl.distinguishing.first() {
                    p.push_str(&format!(", {}", difference_words(d)));
                }
                p
            })
            .collect();
        if !parts.is_empty() {
            s.push_str(": ");
            s.push_str(&parts.join("; "));
        }
    }
    s.push('.');
    if !c.outliers.is_empty() {
        let named: Vec<String> = c
            .outliers
            .iter()
            .take(LISTED)
            .map(|o| {
                let how = match o.reason {
                    OutlierReason::Alone => "is alone".to_string(),
                    OutlierReason::Far => format!("is far from its cluster's medoid (cluster {})", o.cluster),
                };
                let what =
                    o.distinguishing.first().map(difference_words).unwrap_or_else(|| "a different timing".into());
                format!("{} {how}: {what}", location_words(trace, o.location.0))
            })
            .collect();
        s.push_str(&format!(
            " {} {}: {}",
            c.outliers.len(),
            plural(c.outliers.len(), "outlier", "outliers"),
            named.join("; ")
        ));
        if c.outliers.len() > LISTED {
            s.push_str(&format!("; and {} more", thousands(c.outliers.len() - LISTED)));
        }
        s.push('.');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_017), "1,017");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    #[test]
    fn differences_read_as_ratios() {
        let d = |fraction, others_fraction, ratio| Distinguishing {
            region: 0,
            name: "MPI_Waitall".into(),
            fraction,
            others_fraction,
            ratio,
        };
        assert_eq!(difference_words(&d(0.3, 0.1, Some(3.0))), "3.0x the time in MPI_Waitall");
        assert_eq!(difference_words(&d(0.025, 0.1, Some(0.25))), "0.25x the time in MPI_Waitall");
        assert_eq!(difference_words(&d(0.2, 0.0, None)), "20.0% of the time in MPI_Waitall, none in the others");
    }
}
