//! The critical path and the what-if replay (issue #53's Proof) on real OTF2 traces (../shared/traces, skipped
//! with a SKIPPED line where absent) and on archives of the OTF2 generator (`weft generate otf2`'s): the path's
//! length is the span; the replay at scale 1.0 gives back every recorded time; scaling a region on the path by
//! 0.5 shortens the predicted span, scaling one off the path leaves it; scaling any region down never makes
//! anything later.

use crate::common::{read::read_path, shared_traces};
use weft::analyses::diagnosis::critical_path::{critical_path, path_report, PathReport, NO_REGION};
use weft::analyses::diagnosis::waits::wait_states;
use weft::analyses::diagnosis::whatif::{replay_with_notes, what_if, ReplayNotes, Scale};
use weft::model::{RegionId, Trace};
use weft::readers::otf2::read_archive;
use weft::samples::otf2_gen::{archive, GenConfig};

/// Every recorded time back; the replay's notes.
fn replays_exactly(name: &str, t: &Trace) -> ReplayNotes {
    let states = wait_states(t);
    let (same, notes) = replay_with_notes(t, &states, &[]);
    let total: u64 = states.waits.iter().map(|w| w.ns()).sum();
    assert!(notes.held_wait_ns <= total, "{name}: held {} of {total}", notes.held_wait_ns);
    eprintln!(
        "{name}: {} waits, {total} ns waiting, {} ns held, {} forced",
        states.waits.len(),
        notes.held_wait_ns,
        notes.forced_waits
    );
    assert_eq!(same.span_ns, t.span_ns, "{name}: the span");
    assert!(same.intervals.start_ns == t.intervals.start_ns, "{name}: interval starts");
    assert!(same.intervals.dur_ns == t.intervals.dur_ns, "{name}: interval lengths");
    assert!(same.messages.send_ns == t.messages.send_ns, "{name}: sends");
    assert!(same.messages.recv_ns == t.messages.recv_ns, "{name}: receives");
    assert!(same.messages.posted_ns == t.messages.posted_ns, "{name}: postings");
    assert!(same.collectives.start_ns == t.collectives.start_ns, "{name}: collective begins");
    assert!(same.collectives.end_ns == t.collectives.end_ns, "{name}: collective ends");
    assert!(same.instants.time_ns == t.instants.time_ns, "{name}: instants");
    assert!(same.counters.sample_time_ns == t.counters.sample_time_ns, "{name}: counter samples");
    notes
}

/// Scaling regions down never makes anything later: every rule is a max (or a reduce's min) of times that only
/// move earlier. Checked for each region with time in the run, at 0.5 and 0.
fn scaling_down_never_delays(name: &str, t: &Trace) {
    let states = wait_states(t);
    for (region, _) in exclusive_by_name(t).into_iter().filter(|x| x.1 > 0) {
        for f in [0.5, 0.0] {
            let (r, _) = replay_with_notes(t, &states, &scales(t, &region, f));
            assert!(r.span_ns <= t.span_ns, "{name}: {region} at {f}");
            for i in 0..t.intervals.len() {
                assert!(
                    r.intervals.start_ns[i] <= t.intervals.start_ns[i]
                        && r.intervals.end_ns(i) <= t.intervals.end_ns(i),
                    "{name}: {region} at {f}: interval {i} later"
                );
            }
        }
    }
}

/// The path tiles the span; returns its report.
fn path_is_the_span(name: &str, t: &Trace) -> PathReport {
    let states = wait_states(t);
    let path = critical_path(t, &states);
    assert_eq!(path.length_ns, t.span_ns, "{name}: the path's length is the span");
    let mut at = 0;
    for s in &path.segments {
        assert_eq!(s.start_ns, at, "{name}: segments touch");
        at = s.end_ns;
    }
    assert_eq!(at, t.span_ns);
    let r = path_report(t, &path);
    assert_eq!(r.length_ns, t.span_ns);
    assert_eq!(r.by_region.iter().map(|x| x.ns).sum::<u64>(), t.span_ns, "{name}: by region sums to the span");
    assert_eq!(r.by_location.iter().sum::<u64>(), t.span_ns, "{name}: by location sums to the span");
    assert_eq!(r.by_location.len(), t.locations.len());
    r
}

fn regions_named(t: &Trace, name: &str) -> Vec<RegionId> {
    (0..t.regions.len() as u32).map(RegionId).filter(|&r| t.region_name(r) == name).collect()
}

fn scales(t: &Trace, name: &str, factor: f64) -> Vec<Scale> {
    regions_named(t, name).into_iter().map(|region| Scale { region, factor }).collect()
}

/// Exclusive time of each region name over the whole trace.
fn exclusive_by_name(t: &Trace) -> std::collections::BTreeMap<String, u64> {
    let iv = &t.intervals;
    let mut out = std::collections::BTreeMap::new();
    for l in 0..t.locations.len() {
        let range = t.intervals_of(weft::model::LocationId(l as u32));
        let mut children = vec![0u64; range.len()];
        let mut stack: Vec<usize> = Vec::new();
        for i in range.clone() {
            stack.truncate(iv.depth[i] as usize);
            if let Some(&p) = stack.last() {
                children[p - range.start] += iv.dur_ns[i];
            }
            stack.push(i);
        }
        for i in range.clone() {
            let name = t.region_name(iv.region[i]).to_string();
            *out.entry(name).or_insert(0) += iv.dur_ns[i].saturating_sub(children[i - range.start]);
        }
    }
    out
}

/// Scaling the region with the most time on the path by 0.5 shortens the span; scaling one with time in the
/// run but none on the path leaves it.
fn what_if_on_and_off_the_path(name: &str, t: &Trace, report: &PathReport) {
    let states = wait_states(t);
    let on = report.by_region.iter().find(|r| r.name != NO_REGION).expect("a region on the path");
    let w = what_if(t, &states, &scales(t, &on.name, 0.5));
    assert!(
        w.predicted_span_ns < t.span_ns,
        "{name}: {} on the path ({} ns) at 0.5: {} -> {}",
        on.name,
        on.ns,
        t.span_ns,
        w.predicted_span_ns
    );
    assert_eq!(w.path.length_ns, w.predicted_span_ns, "{name}: the new path's length is the new span");
    let on_path: std::collections::BTreeSet<&str> = report.by_region.iter().map(|r| r.name.as_str()).collect();
    let off =
        exclusive_by_name(t).into_iter().filter(|(n, ns)| *ns > 0 && !on_path.contains(n.as_str())).max_by_key(|x| x.1);
    match off {
        Some((off, ns)) => {
            let w = what_if(t, &states, &scales(t, &off, 0.5));
            assert_eq!(w.predicted_span_ns, t.span_ns, "{name}: {off} ({ns} ns, none on the path) at 0.5");
        }
        None => eprintln!("{name}: every region with time is on the path; the off-path check has nothing to scale"),
    }
}

#[test]
fn shared_otf2_traces_path_and_replay() {
    let Some(dir) = shared_traces("shared_otf2_traces_path_and_replay") else { return };
    let mut seen = 0;
    for name in ["pipit-ping-pong-mpi", "pipit-ping-pong-mpi-papi", "tracer-stencil4d-mpi-32"] {
        let anchor = dir.join("otf2").join(name).join("traces.otf2");
        if !anchor.exists() {
            eprintln!("SKIPPED {name}: {} is absent", anchor.display());
            continue;
        }
        let t = read_path(&anchor).expect("the shared trace reads");
        let report = path_is_the_span(name, &t);
        replays_exactly(name, &t);
        what_if_on_and_off_the_path(name, &t, &report);
        scaling_down_never_delays(name, &t);
        seen += 1;
    }
    assert!(seen > 0, "no OTF2 trace under {}", dir.display());
}

#[test]
fn generated_otf2_runs_path_and_replay() {
    for cfg in [
        GenConfig::new(2, 5_000),
        GenConfig { threads: 3, ..GenConfig::new(4, 40_000) },
        GenConfig { seed: 7, metrics: 2, ..GenConfig::new(5, 30_000) },
        GenConfig { long_wait: true, ..GenConfig::new(3, 20_000) },
        GenConfig { resolution: 2_095_197_216, threads: 2, ..GenConfig::new(3, 20_000) },
    ] {
        let (files, _) = archive(&cfg);
        let t = read_archive("traces.otf2", &files).expect("generated archive reads");
        let name = format!("{cfg:?}");
        let report = path_is_the_span(&name, &t);
        let notes = replays_exactly(&name, &t);
        assert_eq!(notes.forced_waits, 0, "{name}: one clock, no cycle of causes");
        what_if_on_and_off_the_path(&name, &t, &report);
        scaling_down_never_delays(&name, &t);
    }
}
