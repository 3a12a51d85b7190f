//! The first pass over an OTF2 trace's threading events: one walk over every location's events merged in time
//! order (a task is created on one location and run on another), that finds
//! the logical threads ("exec threads": each process's master, each pthread between its begin and end, each
//! team member between its team begin and end, each explicit task from its first switch-in to its completion),
//! which thread was current at every event, and the synchronization regions (taskwait, barriers,
//! `pthread_join`-like regions) each thread entered.
//!
//! A team begin with no THREAD_FORK before it, on a location already running a thread, stands for the fork
//! (some writers record no fork). Tasks are named (thread team, creating thread, generation), as in OTF2.
//!
//! Records facts only; pairing creates with begins, forks with team members and children with the wait that
//! joins them is `execgraph`'s and `tasks`' job. Unmatched or out-of-place events become warnings, never
//! panics.

use crate::otf2::{ThreadEvent, ThreadEventKind};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use weft_model::sort::SortDyn;
use weft_model::{LocationId, RegionId, RegionRole, Trace, WarningKind, Warnings};

/// Which kind of logical thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The master thread of a process: its root location's whole timeline.
    Root,
    /// A thread between THREAD_BEGIN and THREAD_END.
    Pthread,
    /// A team member (not the master) between THREAD_TEAM_BEGIN and THREAD_TEAM_END.
    Member,
    /// An explicit task, from its first switch-in to its completion.
    Task,
}

/// One logical thread.
#[derive(Clone, Debug)]
pub struct Exec {
    /// The thread id in the neutral thread events (see the module `execgraph` for the scheme).
    pub id: u64,
    pub role: Role,
    /// The process (location group) it ran in.
    pub node: u32,
    /// The location it started on.
    pub loc: u32,
    pub start: u64,
    pub end: Option<u64>,
    /// For a task: its index in [`Walk::tasks`].
    pub task: Option<usize>,
}

/// What a synchronization region waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncKind {
    TaskWait,
    Barrier,
    /// A region whose name says it joins threads (`pthread_join`, `thrd_join`, ...).
    ThreadJoin,
}

/// A synchronization region entered while a thread was current on its location.
#[derive(Clone, Copy, Debug)]
pub struct Sync {
    pub kind: SyncKind,
    pub enter: u64,
    pub leave: u64,
}

/// One OpenMP parallel region: the master's fork, its team, its join.
#[derive(Clone, Debug)]
pub struct Team {
    /// The exec thread that forked.
    pub master: usize,
    pub fork_t: u64,
    /// The team communicator, from the master's THREAD_TEAM_BEGIN after the fork.
    pub team: Option<u32>,
    pub master_team_end: Option<u64>,
    pub join_t: Option<u64>,
    /// Member exec threads (not the master), filled by matching.
    pub members: Vec<usize>,
    /// No THREAD_FORK: the team begin of a location that was already running a thread stands for the fork,
    /// and its team end for the join.
    pub implied: bool,
}

/// One explicit task.
#[derive(Clone, Debug)]
pub struct Task {
    /// The exec thread that created it (a task or an implicit thread).
    pub creator: usize,
    pub create_loc: u32,
    pub create_t: u64,
    /// The enclosing task-creation region, when there is one.
    pub create_region: Option<(u64, u64)>,
    /// Its exec thread, once it ran.
    pub exec: Option<usize>,
    /// When it ran: (from, to, location).
    pub segments: Vec<(u64, u64, u32)>,
    pub complete: Option<u64>,
    /// The region it executes (role task), else the creation region; for its source location.
    pub region: Option<RegionId>,
}

/// What the walk found.
#[derive(Default)]
pub struct Walk {
    pub execs: Vec<Exec>,
    /// Per exec thread, the synchronization regions it entered, in time order.
    pub syncs: Vec<Vec<Sync>>,
    pub teams: Vec<Team>,
    pub tasks: Vec<Task>,
    /// pthreads: (contingent, sequence) -> (creating exec, time).
    pub creates: HashMap<(u32, u64), (usize, u64)>,
    /// (contingent, sequence) -> the exec thread that began.
    pub begins: HashMap<(u32, u64), usize>,
    /// THREAD_WAIT: (contingent, sequence), waiting exec, time; in trace order.
    pub waits: Vec<((u32, u64), usize, u64)>,
    /// Worker team begins to match to a fork: (team, member exec, time).
    pub workers: Vec<(u32, usize, u64)>,
    /// Per process, its root exec thread.
    pub roots: Vec<usize>,
    pub warnings: Warnings,
    /// Counts of the event kinds that matter (for "no thread events" messages and tests).
    pub thread_records: usize,
    pub task_records: usize,
}

enum Entry {
    Thread(usize),
    /// The location is the master of this team (its own membership continues its thread).
    Master(usize),
}

/// A task's name across both generations of OTF2 records.
type TaskKey = (u64, u64);

/// Where the walk is on one location with events.
struct Cursor {
    /// The next of the location's events.
    next: usize,
    syncs: Vec<(u64, u64, SyncKind)>,
    next_sync: usize,
    open: Open,
}

struct Loc {
    stack: Vec<Entry>,
    open_forks: Vec<usize>,
    pending_fork: Option<usize>,
    current_task: Option<usize>,
    since: u64,
    next_instance: u64,
}

impl Loc {
    fn current(&self, w: &Walk) -> Option<usize> {
        if let Some(t) = self.current_task {
            return w.tasks[t].exec;
        }
        self.stack.iter().rev().find_map(|e| match e {
            Entry::Thread(x) => Some(*x),
            Entry::Master(_) => None,
        })
    }
}

/// The first and last time anything happened on each location (intervals and threading events).
fn location_spans(trace: &Trace, events: &[ThreadEvent]) -> Vec<Option<(u64, u64)>> {
    let mut span: Vec<Option<(u64, u64)>> = vec![None; trace.locations.len()];
    let mut widen = |l: usize, a: u64, b: u64| {
        if let Some(s) = span.get_mut(l) {
            *s = Some(match *s {
                Some((x, y)) => (x.min(a), y.max(b)),
                None => (a, b),
            });
        }
    };
    for l in 0..trace.locations.len() {
        for i in trace.intervals_of(LocationId(l as u32)) {
            widen(l, trace.intervals.start_ns[i], trace.intervals.end_ns(i));
        }
    }
    for e in events {
        widen(e.location.index(), e.time_ns, e.time_ns);
    }
    span
}

fn classify(trace: &Trace, r: RegionId) -> Option<SyncKind> {
    match trace.regions.role[r.index()] {
        RegionRole::TaskWait => Some(SyncKind::TaskWait),
        RegionRole::Barrier | RegionRole::ImplicitBarrier => Some(SyncKind::Barrier),
        _ => {
            let name = trace.region_name(r).to_ascii_lowercase();
            name.contains("join").then_some(SyncKind::ThreadJoin)
        }
    }
}

/// The intervals open on one location at the walk's current time (a stack, innermost last), kept by
/// sweeping the location's intervals in start order alongside its events: the innermost enclosing region of
/// an event costs its nesting depth, not a search.
struct Open {
    next: usize,
    end: usize,
    stack: Vec<usize>,
}

impl Open {
    fn new(trace: &Trace, l: LocationId) -> Self {
        let r = trace.intervals_of(l);
        Open { next: r.start, end: r.end, stack: Vec::new() }
    }
    /// Move to time `t`: open every interval that started by then, drop those that ended before.
    fn advance(&mut self, trace: &Trace, t: u64) {
        while self.next < self.end && trace.intervals.start_ns[self.next] <= t {
            let s = trace.intervals.start_ns[self.next];
            self.stack.retain(|&k| trace.intervals.end_ns(k) >= s);
            self.stack.push(self.next);
            self.next += 1;
        }
        while let Some(&k) = self.stack.last() {
            if trace.intervals.end_ns(k) >= t {
                break;
            }
            self.stack.pop();
        }
    }
    /// The innermost open interval holding `t` whose region has `role`.
    fn innermost(&self, trace: &Trace, t: u64, role: RegionRole) -> Option<usize> {
        self.stack
            .iter()
            .rev()
            .copied()
            .find(|&k| trace.intervals.end_ns(k) >= t && trace.regions.role[trace.intervals.region[k].index()] == role)
    }
}

/// The first interval of `l` that starts at or after `t`, when its region has `role` (a task region is
/// entered right after the switch to the task).
fn next_with_role(trace: &Trace, l: u32, t: u64, role: RegionRole) -> Option<usize> {
    let range = trace.intervals_of(LocationId(l));
    let first = range.start + trace.intervals.start_ns[range.clone()].partition_point(|&s| s < t);
    (first < range.end && trace.regions.role[trace.intervals.region[first].index()] == role).then_some(first)
}

/// Walk every location's events, merged in time order. Legacy OMP_* records are used only when the trace has
/// none of their OTF2 1.2 successors (Score-P writes both kinds side by side in some versions).
pub fn walk(trace: &Trace, events: &[ThreadEvent]) -> Walk {
    let mut w = Walk::default();
    let spans = location_spans(trace, events);
    let new_forks =
        events.iter().any(|e| matches!(e.kind, ThreadEventKind::Fork { .. } | ThreadEventKind::Join { .. }));
    let new_tasks = events.iter().any(|e| {
        matches!(
            e.kind,
            ThreadEventKind::TaskCreate { .. }
                | ThreadEventKind::TaskSwitch { .. }
                | ThreadEventKind::TaskComplete { .. }
        )
    });
    // Each process's root: its first location with anything on it.
    let n_loc = trace.locations.len();
    let mut root_loc: Vec<Option<u32>> = vec![None; trace.processes.len()];
    for (l, span) in spans.iter().enumerate() {
        let p = trace.locations.process[l].index();
        if root_loc[p].is_none() && span.is_some() {
            root_loc[p] = Some(l as u32);
        }
    }
    let mut locs: Vec<Loc> = (0..n_loc)
        .map(|_| Loc {
            stack: Vec::new(),
            open_forks: Vec::new(),
            pending_fork: None,
            current_task: None,
            since: 0,
            next_instance: 1,
        })
        .collect();
    for (p, rl) in root_loc.iter().enumerate() {
        let Some(l) = *rl else { continue };
        let Some((a, b)) = spans[l as usize] else { continue };
        let e = w.push_exec(Exec {
            id: (l as u64) << 32,
            role: Role::Root,
            node: p as u32,
            loc: l,
            start: a,
            end: Some(b),
            task: None,
        });
        locs[l as usize].stack.push(Entry::Thread(e));
        w.roots.push(e);
    }
    let mut tasks_by_key: HashMap<TaskKey, usize> = HashMap::new();

    // Every location's events, merged in time order: a task is created on one location and switched to on
    // another, a team's members begin on several. At equal times, creates (and everything else) go before
    // switches and completions, so a task created and taken at one instant is known when it is taken.
    let mut of_loc: Vec<Vec<usize>> = vec![Vec::new(); n_loc];
    let mut undefined: Vec<usize> = Vec::new();
    for (k, e) in events.iter().enumerate() {
        match of_loc.get_mut(e.location.index()) {
            Some(v) => v.push(k),
            None => undefined.push(e.location.index()),
        }
    }
    undefined.sort_unstable();
    undefined.dedup();
    for li in undefined {
        w.warnings.push(WarningKind::DanglingReference, || format!("thread events on undefined location {li}"));
    }
    let takes_task = |e: &ThreadEvent| {
        use ThreadEventKind as K;
        matches!(
            e.kind,
            K::TaskSwitch { .. } | K::TaskComplete { .. } | K::OmpTaskSwitch { .. } | K::OmpTaskComplete { .. }
        ) as u8
    };
    // Per location: its synchronization regions (merged with its events by time) and its open intervals.
    let mut cursors: Vec<Option<Cursor>> = (0..n_loc)
        .map(|li| {
            if of_loc[li].is_empty() {
                return None;
            }
            let l = LocationId(li as u32);
            let mut syncs: Vec<(u64, u64, SyncKind)> = trace
                .intervals_of(l)
                .filter_map(|k| {
                    classify(trace, trace.intervals.region[k])
                        .map(|s| (trace.intervals.start_ns[k], trace.intervals.end_ns(k), s))
                })
                .collect();
            syncs.sort_dyn_by_key(|s| s.0);
            Some(Cursor { next: 0, syncs, next_sync: 0, open: Open::new(trace, l) })
        })
        .collect();
    let mut heap: BinaryHeap<Reverse<(u64, u8, usize)>> = (0..n_loc)
        .filter_map(|li| of_loc[li].first().map(|&k| Reverse((events[k].time_ns, takes_task(&events[k]), li))))
        .collect();
    while let Some(Reverse((_, _, li))) = heap.pop() {
        let Some(c) = cursors[li].as_mut() else { continue };
        let e = &events[of_loc[li][c.next]];
        c.next += 1;
        c.open.advance(trace, e.time_ns);
        while c.next_sync < c.syncs.len() && c.syncs[c.next_sync].0 < e.time_ns {
            w.attribute_sync(&locs[li], c.syncs[c.next_sync]);
            c.next_sync += 1;
        }
        w.event(trace, &c.open, &mut locs, &mut tasks_by_key, e, (new_forks, new_tasks));
        if let Some(&k) = of_loc[li].get(c.next) {
            heap.push(Reverse((events[k].time_ns, takes_task(&events[k]), li)));
        }
    }
    for li in 0..n_loc {
        let Some(c) = cursors[li].take() else { continue };
        for &s in &c.syncs[c.next_sync..] {
            w.attribute_sync(&locs[li], s);
        }
        // Whatever is still open at the location's last moment ends there.
        let last = spans[li].map(|s| s.1).unwrap_or(0);
        let loc = &mut locs[li];
        if let Some(t) = loc.current_task.take() {
            w.close_segment(t, loc.since, last, li as u32);
        }
        while let Some(en) = loc.stack.pop() {
            match en {
                Entry::Thread(x) if w.execs[x].end.is_none() => {
                    w.execs[x].end = Some(last);
                    let id = w.execs[x].id;
                    w.warnings.push(WarningKind::UnclosedBegin, || {
                        format!("location {li}: thread {id} never ends; ended at the location's last event")
                    });
                }
                Entry::Master(k) if w.teams[k].implied && w.teams[k].join_t.is_none() => {
                    w.teams[k].join_t = Some(last);
                    w.warnings.push(WarningKind::UnclosedBegin, || {
                        format!("location {li}: a thread team never ends; ended at the location's last event")
                    });
                }
                _ => {}
            }
        }
    }
    // Tasks that ran but never completed end with their last run.
    for t in 0..w.tasks.len() {
        if let (Some(x), None) = (w.tasks[t].exec, w.tasks[t].complete) {
            let last = w.tasks[t].segments.last().map(|s| s.1).unwrap_or(w.execs[x].start);
            w.execs[x].end = Some(last);
            w.warnings.push(WarningKind::UnclosedBegin, || format!("task {t}: never completes; ended at its last run"));
        }
    }
    // A thread that moved between locations has its runs and waits in walk order: put them in time order.
    for t in &mut w.tasks {
        t.segments.sort_dyn_by_key(|s| (s.0, s.1));
    }
    for s in &mut w.syncs {
        s.sort_dyn_by_key(|x| x.enter);
    }
    w.match_workers();
    w
}

impl Walk {
    fn push_exec(&mut self, e: Exec) -> usize {
        self.execs.push(e);
        self.syncs.push(Vec::new());
        self.execs.len() - 1
    }

    fn new_instance(&mut self, loc: &mut Loc, l: u32, role: Role, node: u32, t: u64) -> usize {
        let id = ((l as u64) << 32) | (loc.next_instance & 0xFFFF_FFFF);
        loc.next_instance += 1;
        self.push_exec(Exec { id, role, node, loc: l, start: t, end: None, task: None })
    }

    fn attribute_sync(&mut self, loc: &Loc, (enter, leave, kind): (u64, u64, SyncKind)) {
        if let Some(x) = loc.current(self) {
            self.syncs[x].push(Sync { kind, enter, leave });
        }
    }

    fn close_segment(&mut self, t: usize, from: u64, to: u64, l: u32) {
        self.tasks[t].segments.push((from, to.max(from), l));
    }

    fn event(
        &mut self,
        trace: &Trace,
        open: &Open,
        locs: &mut [Loc],
        by_key: &mut HashMap<TaskKey, usize>,
        e: &ThreadEvent,
        (new_forks, new_tasks): (bool, bool),
    ) {
        let l = e.location.index();
        let lu = l as u32;
        let t = e.time_ns;
        let node = trace.locations.process[l].0;
        let warn = |w: &mut Walk, kind: WarningKind, what: &str| {
            w.warnings.push(kind, || format!("location {l}, {t} ns: {what}"));
        };
        use ThreadEventKind as K;
        let kind = match e.kind {
            K::OmpFork { requested_threads } if !new_forks => K::Fork { model: 3, requested_threads },
            K::OmpJoin if !new_forks => K::Join { model: 3 },
            K::OmpFork { .. } | K::OmpJoin => return,
            k => k,
        };
        let task_key = match kind {
            K::TaskCreate { team, creating_thread, generation }
            | K::TaskSwitch { team, creating_thread, generation }
            | K::TaskComplete { team, creating_thread, generation } => {
                Some(((team as u64) << 32 | creating_thread as u64, generation as u64))
            }
            K::OmpTaskCreate { task } | K::OmpTaskSwitch { task } | K::OmpTaskComplete { task } if !new_tasks => {
                Some((u64::MAX, task))
            }
            K::OmpTaskCreate { .. } | K::OmpTaskSwitch { .. } | K::OmpTaskComplete { .. } => return,
            _ => None,
        };
        if task_key.is_some() {
            self.task_records += 1;
        } else {
            self.thread_records += 1;
        }
        match kind {
            K::Create { contingent, sequence } => match locs[l].current(self) {
                Some(x) => {
                    if self.creates.insert((contingent, sequence), (x, t)).is_some() {
                        warn(self, WarningKind::Other, "a second THREAD_CREATE with the same contingent and sequence");
                    }
                }
                None => warn(self, WarningKind::DanglingReference, "THREAD_CREATE outside any thread"),
            },
            K::Begin { contingent, sequence } => {
                let x = self.new_instance(&mut locs[l], lu, Role::Pthread, node, t);
                if self.begins.insert((contingent, sequence), x).is_some() {
                    warn(self, WarningKind::Other, "a second THREAD_BEGIN with the same contingent and sequence");
                }
                locs[l].stack.push(Entry::Thread(x));
            }
            K::End { contingent, sequence } => {
                let top = match locs[l].stack.last() {
                    Some(Entry::Thread(x)) if self.execs[*x].role == Role::Pthread => Some(*x),
                    _ => None,
                };
                match (top, self.begins.get(&(contingent, sequence))) {
                    (Some(x), Some(&b)) if x == b => {
                        self.execs[x].end = Some(t);
                        locs[l].stack.pop();
                    }
                    _ => warn(self, WarningKind::UnmatchedEnd, "THREAD_END without the matching THREAD_BEGIN here"),
                }
            }
            K::Wait { contingent, sequence } => match locs[l].current(self) {
                Some(x) => self.waits.push(((contingent, sequence), x, t)),
                None => warn(self, WarningKind::DanglingReference, "THREAD_WAIT outside any thread"),
            },
            K::Fork { .. } => match locs[l].current(self) {
                Some(x) => {
                    self.teams.push(Team {
                        master: x,
                        fork_t: t,
                        team: None,
                        master_team_end: None,
                        join_t: None,
                        members: Vec::new(),
                        implied: false,
                    });
                    let k = self.teams.len() - 1;
                    locs[l].pending_fork = Some(k);
                    locs[l].open_forks.push(k);
                }
                None => warn(self, WarningKind::DanglingReference, "THREAD_FORK outside any thread"),
            },
            K::TeamBegin { team } => {
                if let Some(k) = locs[l].pending_fork.take() {
                    self.teams[k].team = Some(team);
                    locs[l].stack.push(Entry::Master(k));
                } else if let Some(x) = locs[l].current(self) {
                    // No fork before it, but this location already runs a thread (a process's master, a
                    // pthread, a member of an outer team): it is the master of this team, and its team
                    // begin and end stand for the fork and the join.
                    self.teams.push(Team {
                        master: x,
                        fork_t: t,
                        team: Some(team),
                        master_team_end: None,
                        join_t: None,
                        members: Vec::new(),
                        implied: true,
                    });
                    locs[l].stack.push(Entry::Master(self.teams.len() - 1));
                } else {
                    let x = self.new_instance(&mut locs[l], lu, Role::Member, node, t);
                    locs[l].stack.push(Entry::Thread(x));
                    self.workers.push((team, x, t));
                }
            }
            K::TeamEnd { .. } => match locs[l].stack.last() {
                Some(Entry::Master(k)) => {
                    let k = *k;
                    self.teams[k].master_team_end = Some(t);
                    if self.teams[k].implied {
                        self.teams[k].join_t = Some(t);
                    }
                    locs[l].stack.pop();
                }
                Some(Entry::Thread(x)) if self.execs[*x].role == Role::Member => {
                    self.execs[*x].end = Some(t);
                    locs[l].stack.pop();
                }
                _ => warn(self, WarningKind::UnmatchedEnd, "THREAD_TEAM_END without a team begin here"),
            },
            K::Join { .. } => {
                locs[l].pending_fork = None;
                match locs[l].open_forks.pop() {
                    Some(k) => self.teams[k].join_t = Some(t),
                    None => warn(self, WarningKind::UnmatchedEnd, "THREAD_JOIN without a fork"),
                }
            }
            K::TaskCreate { .. } | K::OmpTaskCreate { .. } => {
                let Some(x) = locs[l].current(self) else {
                    return warn(self, WarningKind::DanglingReference, "task created outside any thread");
                };
                let key = task_key.unwrap_or_default();
                if let Some(&old) = by_key.get(&key) {
                    if self.tasks[old].complete.is_none() {
                        warn(self, WarningKind::Other, "a task created again before the first one completed");
                    }
                }
                let around = open.innermost(trace, t, RegionRole::TaskCreate);
                let create_region = around.map(|k| (trace.intervals.start_ns[k], trace.intervals.end_ns(k)));
                let region = around.map(|k| trace.intervals.region[k]);
                self.tasks.push(Task {
                    creator: x,
                    create_loc: lu,
                    create_t: t,
                    create_region,
                    exec: None,
                    segments: Vec::new(),
                    complete: None,
                    region,
                });
                by_key.insert(key, self.tasks.len() - 1);
            }
            K::TaskSwitch { .. } | K::OmpTaskSwitch { .. } => {
                let key = task_key.unwrap_or_default();
                if let Some(c) = locs[l].current_task.take() {
                    let since = locs[l].since;
                    self.close_segment(c, since, t, lu);
                }
                // A name no create gave is an implicit task: the location's own thread runs again.
                let Some(&k) = by_key.get(&key) else { return };
                if self.tasks[k].complete.is_some() {
                    return warn(self, WarningKind::Other, "a switch to a completed task");
                }
                if self.tasks[k].exec.is_none() {
                    let x = self.push_exec(Exec {
                        id: 1 << 63 | k as u64,
                        role: Role::Task,
                        node,
                        loc: lu,
                        start: t,
                        end: None,
                        task: Some(k),
                    });
                    self.tasks[k].exec = Some(x);
                    // Its own task region is entered right after the switch (an enclosing one would be the
                    // parent's); without one, the creation region names it.
                    if let Some(r) = next_with_role(trace, lu, t, RegionRole::Task) {
                        self.tasks[k].region = Some(trace.intervals.region[r]);
                    }
                }
                locs[l].current_task = Some(k);
                locs[l].since = t;
            }
            K::TaskComplete { .. } | K::OmpTaskComplete { .. } => {
                let key = task_key.unwrap_or_default();
                let Some(&k) = by_key.get(&key) else {
                    return warn(self, WarningKind::UnmatchedEnd, "a task completes that was never created");
                };
                if locs[l].current_task == Some(k) {
                    let since = locs[l].since;
                    self.close_segment(k, since, t, lu);
                    locs[l].current_task = None;
                }
                match self.tasks[k].exec {
                    Some(x) if self.tasks[k].complete.is_none() => {
                        self.tasks[k].complete = Some(t);
                        self.execs[x].end = Some(t);
                    }
                    Some(_) => warn(self, WarningKind::Other, "a task completes twice"),
                    None => warn(self, WarningKind::UnmatchedEnd, "a task completes that never ran"),
                }
            }
            K::OmpFork { .. } | K::OmpJoin => {}
        }
    }

    /// Each worker's team begin goes to the latest fork of its team that is open at that time.
    fn match_workers(&mut self) {
        let mut by_team: HashMap<u32, Vec<usize>> = HashMap::new();
        for (k, tm) in self.teams.iter().enumerate() {
            if let Some(c) = tm.team {
                by_team.entry(c).or_default().push(k);
            }
        }
        for &(team, x, t) in &self.workers {
            let found = by_team.get(&team).and_then(|ks| {
                let open = |k: usize| self.teams[k].join_t.is_none_or(|j| j >= t);
                ks.iter()
                    .copied()
                    .filter(|&k| self.teams[k].fork_t <= t && open(k))
                    .max_by_key(|&k| (self.teams[k].fork_t, k))
                    // A team without a fork starts at its master's team begin, which a member's may precede.
                    .or_else(|| {
                        ks.iter()
                            .copied()
                            .filter(|&k| self.teams[k].implied && open(k))
                            .min_by_key(|&k| (self.teams[k].fork_t, k))
                    })
            });
            match found {
                Some(k) => self.teams[k].members.push(x),
                None => {
                    let id = self.execs[x].id;
                    self.warnings.push(WarningKind::DanglingReference, || {
                        format!("thread {id}: a team member with no fork of its team around it; drawn as a root")
                    });
                }
            }
        }
    }
}
