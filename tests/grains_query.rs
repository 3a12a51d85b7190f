//! The grain panel's questions (analyses::grains::query): the problems summary against the problem table and
//! an independent count, and keyboard steps (parent, children, siblings) against the profile's own parent
//! column, on generated profiles.

use crate::common;
use common::read::read_grains;
use std::collections::BTreeMap;
use weft::analyses::grains::query::{problem_summary, problem_table, step, Step};
use weft::analyses::grains::{GrainAnalysis, Thresholds, METRICS};
use weft::samples::grains::{fib_profile, random_profile};

fn analyse(csv: &[u8], t: Thresholds) -> GrainAnalysis {
    GrainAnalysis::new(&read_grains("gen.csv", csv).expect("generated profile reads"), t).expect("analysis")
}

/// task id -> parent task id, from the CSV's own `task` and `parent` columns.
fn parents(csv: &[u8]) -> BTreeMap<u64, u64> {
    let text = String::from_utf8_lossy(csv);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    let head: Vec<String> = lines.next().unwrap().split(',').map(|h| h.replace('"', "")).collect();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let (task, parent) = (col("task"), col("parent"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[task].parse().unwrap(), f[parent].parse().unwrap())
        })
        .collect()
}

#[test]
fn summary_agrees_with_tables_and_counts() {
    for (csv, t) in [
        (random_profile(600, 3, 8), Thresholds::paper()),
        (random_profile(600, 11, 16), Thresholds::prototype()),
        (fib_profile(20, 6, 8), Thresholds::paper()),
    ] {
        let a = analyse(&csv, t);
        let s = problem_summary(&a);
        assert_eq!(s.iter().map(|l| l.metric).collect::<Vec<_>>(), METRICS.to_vec());
        let mut some_problem = false;
        for line in &s {
            let table = problem_table(&a, line.metric).unwrap();
            assert_eq!(line.count, table.len(), "{}", line.metric);
            assert_eq!(line.on_critical_path, table.iter().filter(|r| r.on_critical_path).count());
            assert_eq!(line.worst.as_ref().map(|w| (w.grain, w.task)), table.first().map(|r| (r.grain, r.task)));
            if let (Some(w), Some(r)) = (&line.worst, table.first()) {
                assert!(w.value == r.value || (w.value.is_nan() && r.value.is_nan()));
            }
            assert!(line.threshold.starts_with(line.metric));
            some_problem |= line.count > 0;
        }
        assert!(some_problem, "the generated profiles have problems to summarise");
        // The prototype-style text says the same counts.
        for (line, text) in s.iter().zip(a.summary().lines()) {
            assert!(text.starts_with(&format!("{} grains have {}", line.count, line.threshold)), "{text}");
            assert!(text.contains(&format!(", {} of which", line.on_critical_path)), "{text}");
        }
    }
}

#[test]
fn steps_follow_the_profiles_parents() {
    for csv in [random_profile(500, 5, 8), fib_profile(16, 5, 4)] {
        let a = analyse(&csv, Thresholds::paper());
        let g = &a.graph;
        let parent_of = parents(&csv);
        let grain_of: BTreeMap<u64, u32> = (0..g.grains() as u32).map(|i| (g.grain_task[i as usize], i)).collect();
        let mut reached = 0;
        for i in 0..g.grains() as u32 {
            let task = g.grain_task[i as usize];
            // Parent: the grain of the profile's parent task (task 0 is the program, no grain).
            let want = grain_of.get(&parent_of[&task]).copied();
            assert_eq!(step(&a, i, Step::Parent), want, "parent of task {task}");
            // Children: first child, then next siblings, are exactly the tasks naming this one as parent.
            let mut kids = Vec::new();
            let mut c = step(&a, i, Step::FirstChild);
            while let Some(k) = c {
                assert_eq!(step(&a, k, Step::Parent), Some(i));
                kids.push(g.grain_task[k as usize]);
                let next = step(&a, k, Step::NextSibling);
                if let Some(n) = next {
                    assert_eq!(step(&a, n, Step::PreviousSibling), Some(k), "previous undoes next");
                }
                c = next;
            }
            kids.sort_unstable();
            let mut want_kids: Vec<u64> = parent_of.iter().filter(|(_, &p)| p == task).map(|(&t, _)| t).collect();
            want_kids.sort_unstable();
            assert_eq!(kids, want_kids, "children of task {task}");
            reached += kids.len();
        }
        assert!(reached > 0);
        assert_eq!(step(&a, g.grains() as u32, Step::Parent), None, "a grain past the end has no steps");
        assert_eq!(Step::parse("child"), Some(Step::FirstChild));
        assert_eq!(Step::parse("sideways"), None);
    }
}

#[test]
fn a_number_no_task_has_searches_the_text() {
    let csv = random_profile(300, 7, 4);
    let a = analyse(&csv, Thresholds::paper());
    let g = &a.graph;
    // The lineage of grain 3 ends in a number; a task id wins over text, else the text is searched.
    let task = g.grain_task[3];
    assert_eq!(weft::analyses::grains::query::search(&a, &task.to_string()), vec![3]);
    let text_hits = |n: u64| -> Vec<u32> {
        (0..g.grains() as u32)
            .filter(|&i| {
                let i = i as usize;
                [g.grain_source[i], g.grain_outline[i], g.grain_lineage[i]]
                    .iter()
                    .any(|&s| g.string(s).to_lowercase().contains(&n.to_string()))
            })
            .collect()
    };
    // A number that is no task id but appears in some grain's text (a source line number, say).
    let absent = (0..100_000u64)
        .find(|t| !g.grain_task.contains(t) && !text_hits(*t).is_empty())
        .expect("some number in the grains' text is no task id");
    assert_eq!(weft::analyses::grains::query::search(&a, &absent.to_string()), text_hits(absent));
}
