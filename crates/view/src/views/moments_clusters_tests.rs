//! Clusters marked in the moments view: a generated run of three known behaviours and a planted outlier
//! (`weft_samples::behaviours`) clustered as the clusters panel clusters it (`analyses::clusters`, its JSON),
//! then each row's bar is in its cluster's colour, each representative's row has a diamond, the outlier a
//! triangle and an outlined bar, the grouping is said in the legend, and a hover names the row's cluster.

use super::*;
use crate::scene::moments::{cluster_color, CLUSTER_MARK_EDGE};
use crate::scene::{RectInstance, Shape};
use weft_analyses::clusters::{cluster, json::ClustersJson};

const PLANTED: usize = 17;

fn marked() -> (MomentsPane, ClusterMarks, serde_json::Value) {
    let trace = Rc::new(weft_samples::behaviours::behaviours_trace(30, &[PLANTED]));
    let c = cluster(&trace, None, None).expect("clustered");
    let text = serde_json::to_string(&ClustersJson::new(&trace, &c, Vec::new())).expect("json");
    let marks = cluster_marks(&text, trace.locations.len()).expect("marks");
    let mut pane = MomentsPane::new(trace, 1400.0, 900.0);
    pane.set_clusters(Some(marks.clone()));
    (pane, marks, serde_json::from_str(&text).unwrap())
}

#[test]
fn the_answer_reads_as_each_locations_cluster_its_representatives_and_outliers() {
    let (_, marks, v) = marked();
    assert_eq!(v["k"], 3, "three behaviours: {}", v["summary"]);
    assert_eq!(marks.outliers, vec![PLANTED as u32]);
    assert_eq!(marks.representatives.len(), 3);
    // Each behaviour is one cluster (the planted one joins one of them, as an outlier).
    for l in 0..30usize {
        for m in 0..30usize {
            if l != PLANTED && m != PLANTED {
                assert_eq!(marks.cluster[l] == marks.cluster[m], l % 3 == m % 3, "locations {l} and {m}");
            }
        }
    }
    assert_eq!(marks.said, v["summary"].as_str().unwrap());
    // An answer naming a location the trace lacks is refused, saying so.
    let bad = serde_json::json!({"clusters": [{"medoid": 40, "members": [40]}], "outliers": [], "summary": ""});
    let e = cluster_marks(&bad.to_string(), 30).unwrap_err();
    assert!(e.contains("40") && e.contains("not a location"), "{e}");
    assert!(cluster_marks("{", 30).is_err());
}

#[test]
fn rows_take_their_clusters_colour_representatives_and_the_outlier_are_marked() {
    let (pane, marks, _) = marked();
    let sc = build_moment_view(
        &pane.rows,
        &pane.view,
        &MomentViewOptions { clusters: Some(marks.clone()), span_ns: (0, pane.trace.span_ns), ..Default::default() },
    );
    let groups = pane.view.row_groups(pane.rows.len());
    assert_eq!(groups.len(), 30, "a row each");
    let (x0, ..) = pane.view.plot_rect();
    for g in &groups {
        let m = &pane.rows[g.rows.start];
        let l = m.location as usize;
        let k = marks.cluster[l].expect("every location is clustered");
        let in_row = |r: &&RectInstance| r.y >= g.y - 0.01 && r.y + r.h <= g.y + g.h + 0.01;
        let bar = sc.rects.iter().filter(in_row).find(|r| r.fill == cluster_color(k) && r.x >= x0 - 0.01);
        let bar = bar.unwrap_or_else(|| panic!("row of {}: a bar in cluster {k}'s colour", m.name));
        let diamond = sc.rects.iter().filter(in_row).any(|r| r.shape == Shape::Diamond as u32 && r.x < x0);
        let triangle = sc.rects.iter().filter(in_row).any(|r| r.shape == Shape::TriangleUp as u32 && r.x < x0);
        let representative = marks.representatives.contains(&(l as u32));
        assert_eq!(diamond, representative && l != PLANTED, "row of {}: a diamond only on a representative", m.name);
        assert_eq!(triangle, l == PLANTED, "row of {}: a triangle only on the outlier", m.name);
        assert_eq!(bar.border == CLUSTER_MARK_EDGE, l == PLANTED, "row of {}: the outlier's bar outlined", m.name);
    }
    let said = sc.labels.iter().any(|l| l.text == format!("bars coloured by cluster: {}", marks.said));
    assert!(said, "the grouping in words");
    // Without marks: the plain grey bars.
    let plain = build_moment_view(&pane.rows, &pane.view, &MomentViewOptions::default());
    assert!(!plain.rects.iter().any(|r| r.shape == Shape::Diamond as u32));
}

#[test]
fn the_pane_says_each_rows_cluster_in_its_state_and_hover() {
    let (mut pane, marks, _) = marked();
    let st = pane.state();
    let roles = st["contents"]["clusters"].as_array().or_else(|| st["clusters"].as_array()).expect("clusters");
    assert_eq!(roles.len(), 30);
    let planted_row = pane.rows.iter().position(|m| m.location as usize == PLANTED).unwrap();
    assert_eq!(roles[planted_row][1], "outlier");
    assert_eq!(st["clusters_said"], marks.said.as_str());
    let g = pane.view.row_groups(pane.rows.len())[planted_row].clone();
    let (x0, _, x1, _) = pane.view.plot_rect();
    let h = pane.hover((x0 + x1) / 2.0, g.y + g.h / 2.0).expect("a row");
    assert!(h.lines.iter().any(|l| l.ends_with("an outlier")), "{:?}", h.lines);
    pane.set_clusters(None);
    assert!(pane.state()["clusters"].is_null());
}
