//! OTF2 explicit tasks to the grain model ([`GrainProfile`], times in ns), so the grain-graph analysis builds
//! the graph and derives every metric as it does for any other grain input.
//!
//! Per task: its parent (the creating task, or none for tasks of an implicit thread), execution time (the
//! sum of its switch-in to switch-out runs), creation instant and taskwait instants on its own execution
//! clock, the wait that synchronizes it (`joins_at`), its creation time (the enclosing task-creation
//! region) and overhead (its children's creation regions and its time in taskwait), source location from
//! its task region's name. Computes no metric itself.

use super::walk::{Role, SyncKind, Walk};
use weft_model::grains::{GrainProfile, TimeUnit};
use weft_model::sort::SortDyn;
use weft_model::{Trace, WarningKind};

/// A task's runs in time order with their running sums, for its own clock.
struct Clock<'a> {
    segments: &'a [(u64, u64, u32)],
    /// `sum[i]`: run time of the first i segments.
    sum: Vec<u64>,
}

impl<'a> Clock<'a> {
    fn new(segments: &'a [(u64, u64, u32)]) -> Self {
        let mut sum = Vec::with_capacity(segments.len() + 1);
        sum.push(0);
        for &(a, b, _) in segments {
            sum.push(sum[sum.len() - 1] + (b - a));
        }
        Clock { segments, sum }
    }
    /// Time run before `t`.
    fn before(&self, t: u64) -> u64 {
        let i = self.segments.partition_point(|s| s.0 < t);
        match i.checked_sub(1) {
            Some(last) => self.sum[last] + self.segments[last].1.min(t) - self.segments[last].0,
            None => 0,
        }
    }
    /// Time run inside [from, to].
    fn within(&self, from: u64, to: u64) -> u64 {
        self.before(to).saturating_sub(self.before(from))
    }
}

/// `file:line` from a Score-P-style region name (`!$omp task @fib.c:12`), else "".
fn source_of(name: &str) -> &str {
    name.rsplit_once('@').map(|(_, s)| s.trim()).unwrap_or("")
}

pub fn profile(trace: &Trace, w: &mut Walk, source: &str) -> GrainProfile {
    // Rows: tasks that ran, in creation order; ids from 1 (0 is no row: the implicit root).
    let mut order: Vec<usize> = (0..w.tasks.len()).filter(|&t| w.tasks[t].exec.is_some()).collect();
    let never = w.tasks.len() - order.len();
    if never > 0 {
        w.warnings.push(WarningKind::UnmatchedFlow, || format!("{never} created tasks never run; left out"));
    }
    order.sort_dyn_by_key(|&t| (w.tasks[t].create_t, t));
    let mut row_of = vec![u32::MAX; w.tasks.len()];
    for (r, &t) in order.iter().enumerate() {
        row_of[t] = r as u32;
    }
    // The team (by fork order) each exec thread's implicit work belongs to, for grouping root children.
    let mut team_rank: Vec<usize> = (0..w.teams.len()).collect();
    team_rank.sort_dyn_by_key(|&k| (w.teams[k].fork_t, k));
    let mut rank_of = vec![0u32; w.teams.len()];
    for (r, &k) in team_rank.iter().enumerate() {
        rank_of[k] = r as u32;
    }
    let mut member_team = vec![usize::MAX; w.execs.len()];
    for (k, tm) in w.teams.iter().enumerate() {
        for &m in &tm.members {
            member_team[m] = k;
        }
    }

    let n = order.len();
    let mut p = GrainProfile {
        file: source.to_string(),
        unit: TimeUnit::Nanoseconds,
        wait_start: vec![0],
        ..Default::default()
    };
    let mut creation_column = Vec::with_capacity(n);
    // Per task: its clock, and its waits (enter, leave, instant on its own clock, 1-based like MIR's).
    let clocks: Vec<Clock> = w.tasks.iter().map(|t| Clock::new(&t.segments)).collect();
    let waits_of: Vec<Vec<(u64, u64, u64)>> = (0..w.tasks.len())
        .map(|t| match w.tasks[t].exec {
            Some(x) => w.syncs[x]
                .iter()
                .filter(|s| s.kind == SyncKind::TaskWait)
                .map(|s| (s.enter, s.leave, 1 + clocks[t].before(s.enter)))
                .collect(),
            None => Vec::new(),
        })
        .collect();
    let mut lineage: Vec<String> = vec![String::new(); n];
    let mut kids_so_far = vec![0u32; n + 1];
    let mut overhead = vec![0u64; n];
    for (r, &t) in order.iter().enumerate() {
        let task = &w.tasks[t];
        let creator = &w.execs[task.creator];
        let parent_row = match (creator.role, creator.task) {
            (Role::Task, Some(pt)) if row_of[pt] != u32::MAX => Some(row_of[pt] as usize),
            _ => None,
        };
        let ct = task.create_t;
        let (parent_id, create_instant, joins_at) = match parent_row {
            Some(pr) => {
                let pt = order[pr];
                let at = waits_of[pt].partition_point(|&(enter, _, _)| enter < ct);
                (pr as u64 + 1, 1 + clocks[pt].before(ct), at as u32)
            }
            None => {
                // Tasks of implicit threads: grouped by the team they run in and the barrier that ends them.
                let x = task.creator;
                let team = if member_team[x] != usize::MAX {
                    Some(member_team[x])
                } else {
                    w.teams.iter().position(|tm| tm.master == x && tm.fork_t <= ct && tm.join_t.is_none_or(|j| j >= ct))
                };
                let from = team.map_or(0, |k| w.teams[k].fork_t);
                let barrier = w.syncs[x]
                    .iter()
                    .filter(|s| s.kind == SyncKind::Barrier && s.enter >= from && s.enter < ct)
                    .count();
                let rank = team.map_or(w.teams.len() as u32, |k| rank_of[k]);
                (0, ct, rank.saturating_mul(1024).saturating_add(barrier.min(1023) as u32))
            }
        };
        let slot = parent_row.unwrap_or(n);
        let child_number = kids_so_far[slot];
        kids_so_far[slot] += 1;
        lineage[r] = match parent_row {
            Some(pr) => format!("{}.{child_number}", lineage[pr]),
            None => format!("{child_number}"),
        };
        let creation = task.create_region.map(|(a, b)| b - a);
        if let (Some(pr), Some(c)) = (parent_row, creation) {
            overhead[pr] += c;
        }
        let exec: u64 = task.segments.iter().map(|&(a, b, _)| b - a).sum();
        let waits = &waits_of[t];
        overhead[r] += waits.iter().map(|&(a, b, _)| clocks[t].within(a, b)).sum::<u64>();
        let name = task.region.map(|g| trace.region_name(g)).unwrap_or("");
        p.task.push(r as u64 + 1);
        p.parent.push(parent_id);
        p.joins_at.push(joins_at);
        p.child_number.push(child_number);
        p.core.push(task.segments.first().map(|s| s.2));
        p.exec.push(exec);
        p.create_instant.push(create_instant);
        p.wait_instants.extend(waits.iter().map(|s| s.2));
        p.wait_start.push(p.wait_instants.len() as u32);
        p.function.push(p.strings.intern(name));
        p.source.push(p.strings.intern(source_of(name)));
        p.tag.push(weft_model::StringId::EMPTY);
        creation_column.push(creation.map(|c| c as f64));
    }
    let mut overhead_column = Vec::with_capacity(n);
    for r in 0..n {
        p.num_children.push(kids_so_far[r]);
        overhead_column.push(Some(overhead[r].min(p.exec[r]) as f64));
    }
    p.creation = Some(creation_column);
    p.overhead = Some(overhead_column);
    p.lineage = lineage.iter().map(|l| p.strings.intern(l)).collect();
    p
}
