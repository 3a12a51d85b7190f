//! OTF2 threading events to the execution graph's neutral [`ThreadEvents`]: pairs what the walk found
//! (pthread create/begin/wait/end, OpenMP fork/team/join, explicit tasks) into forks and joins of logical
//! threads. The mapping is documented in docs/otf2-threads.md.
//!
//! Thread ids: a process's master is `location << 32`; the k-th pthread or team membership on a location
//! is `location << 32 | k` (k from 1); explicit task number n is `1 << 63 | n`. Nodes are processes.
//! Emits no graph and checks no fork/join rule beyond pairing: `analyses::execgraph::build` does.

use super::walk::{Role, SyncKind, Walk};
use weft_model::sort::SortDyn;
use weft_model::thread_events::{OriginKind, ThreadEventKind, ThreadEvents};
use weft_model::{WarningKind, Warnings};

/// Something that happens on one exec thread. Joins carry both halves so they stay adjacent.
#[derive(Clone, Copy)]
enum Item {
    Start,
    End,
    Fork(usize),
    Join { begin: u64, end: u64, joined: usize },
}

struct Items {
    /// Per exec thread: (time, phase: 0 start, 1 body, 2 end, order, item).
    of: Vec<Vec<(u64, u8, u32, Item)>>,
    order: u32,
    joined: Vec<bool>,
}

impl Items {
    fn push(&mut self, x: usize, t: u64, item: Item) {
        let phase = match item {
            Item::Start => 0,
            Item::End => 2,
            _ => 1,
        };
        self.order += 1;
        self.of[x].push((t, phase, self.order, item));
    }

    /// Join `children` (exec, end time) on `joiner`, waiting from `from`: a b-join/a-join pair per child in
    /// order of their ends, each a-join at the later of the wait so far and the child's end.
    fn join_chain(&mut self, joiner: usize, from: u64, mut children: Vec<(usize, u64)>, w: &mut Warnings) {
        children.sort_dyn_by_key(|&(c, e)| (e, c));
        let mut cursor = from;
        for (c, e) in children {
            if self.joined[c] {
                w.push(WarningKind::Other, || format!("exec thread {c}: joined a second time; ignored"));
                continue;
            }
            self.joined[c] = true;
            let end = cursor.max(e);
            self.push(joiner, cursor, Item::Join { begin: cursor, end, joined: c });
            cursor = end;
        }
    }
}

/// The neutral thread events of a walked trace. `source` names the trace in messages.
pub fn thread_events(w: &mut Walk, source: &str) -> ThreadEvents {
    let n = w.execs.len();
    let mut it = Items { of: vec![Vec::new(); n], order: 0, joined: vec![false; n] };
    for x in 0..n {
        let e = &w.execs[x];
        it.push(x, e.start, Item::Start);
        it.push(x, e.end.unwrap_or(e.start), Item::End);
    }
    pthreads(w, &mut it);
    teams(w, &mut it);
    tasks(w, &mut it);

    let mut out = ThreadEvents::new(source);
    out.origin_kind = OriginKind::Event;
    // Init and exit per process, at its master's start and end.
    for &r in &w.roots {
        out.push(w.execs[r].start, w.execs[r].node, w.execs[r].id, ThreadEventKind::Init);
    }
    let mut clamped = 0u64;
    for x in 0..n {
        let mut list = std::mem::take(&mut it.of[x]);
        // Joins that begin together are chained by their ends (a task and a team member both joined at one
        // barrier), so b-join follows a-join without going back in time.
        list.sort_dyn_by_key(|&(t, phase, order, item)| {
            let end = if let Item::Join { end, .. } = item { end } else { t };
            (phase, t, end, order)
        });
        let (id, node) = (w.execs[x].id, w.execs[x].node);
        let mut last = 0u64;
        let mut last_join = 0u64;
        let mut at = |t: u64, clamped: &mut u64| {
            if t < last {
                *clamped += 1;
            }
            last = last.max(t);
            last
        };
        for (t, _, _, item) in list {
            match item {
                Item::Start => out.push(at(t, &mut clamped), node, id, ThreadEventKind::Start),
                Item::End => out.push(at(t, &mut clamped), node, id, ThreadEventKind::End),
                Item::Fork(c) => {
                    out.push(at(t, &mut clamped), node, id, ThreadEventKind::Fork { child: w.execs[c].id })
                }
                Item::Join { begin, end, joined } => {
                    // Two waits that overlap on one thread (a task and a team member joined at one
                    // barrier) chain: the later b-join is where the earlier a-join left off.
                    let joined = w.execs[joined].id;
                    let b = at(begin.max(last_join), &mut clamped);
                    let e = at(end.max(b), &mut clamped);
                    last_join = e;
                    out.push(b, node, id, ThreadEventKind::JoinBegin { joined });
                    out.push(e, node, id, ThreadEventKind::JoinEnd { joined });
                }
            }
        }
    }
    if clamped > 0 {
        w.warnings.push(WarningKind::OutOfOrder, || {
            format!("{clamped} fork/join events fell before an earlier event of their thread; moved to that time")
        });
    }
    for &r in &w.roots {
        let end = w.execs[r].end.unwrap_or(w.execs[r].start);
        out.push(end, w.execs[r].node, w.execs[r].id, ThreadEventKind::Exit);
    }
    out.hosts = task_hosts(w);
    out
}

/// Each explicit task's host: the thread (master, pthread or team member) current on the location where
/// the task first ran, at that time (the latest to start there at or before it), so the task is drawn in
/// that thread's column. A task whose location had no such thread has none.
fn task_hosts(w: &Walk) -> Vec<(u64, u64)> {
    let mut threads: Vec<(u32, u64, usize)> = (0..w.execs.len())
        .filter(|&x| w.execs[x].role != Role::Task)
        .map(|x| (w.execs[x].loc, w.execs[x].start, x))
        .collect();
    threads.sort_dyn_by_key(|&(loc, start, x)| (loc, start, x));
    (0..w.execs.len())
        .filter(|&x| w.execs[x].role == Role::Task)
        .filter_map(|x| {
            let (loc, start) = (w.execs[x].loc, w.execs[x].start);
            let k = threads.partition_point(|&(l, s, _)| (l, s) <= (loc, start)).checked_sub(1)?;
            let (l, _, host) = threads[k];
            (l == loc).then(|| (w.execs[x].id, w.execs[host].id))
        })
        .collect()
}

/// Create -> fork on the creator; wait -> join on the waiter, its b-join at the enclosing join region.
fn pthreads(w: &mut Walk, it: &mut Items) {
    let mut creates: Vec<_> = w.creates.iter().map(|(&k, &v)| (k, v)).collect();
    creates.sort_dyn_by_key(|&(k, (x, t))| (t, x, k));
    for (key, (creator, t)) in creates {
        match w.begins.get(&key) {
            Some(&child) => it.push(creator, t, Item::Fork(child)),
            None => w.warnings.push(WarningKind::UnmatchedFlow, || {
                format!("THREAD_CREATE (contingent {}, sequence {}) at {t} ns: no thread begins with it", key.0, key.1)
            }),
        }
    }
    let mut begun: Vec<_> =
        w.begins.iter().filter(|(k, _)| !w.creates.contains_key(k)).map(|(&k, &x)| (k, x)).collect();
    begun.sort_dyn_by_key(|&(k, x)| (x, k));
    for (key, _) in begun {
        w.warnings.push(WarningKind::UnmatchedFlow, || {
            format!("THREAD_BEGIN (contingent {}, sequence {}): no thread created it; drawn as a root", key.0, key.1)
        });
    }
    let waits = std::mem::take(&mut w.waits);
    for &(key, waiter, t) in &waits {
        let Some(&child) = w.begins.get(&key) else {
            w.warnings.push(WarningKind::UnmatchedFlow, || {
                format!("THREAD_WAIT (contingent {}, sequence {}) at {t} ns: no thread begins with it", key.0, key.1)
            });
            continue;
        };
        if w.creates.get(&key).is_some_and(|&(c, ct)| c == waiter && ct > t) {
            w.warnings.push(WarningKind::OutOfOrder, || {
                format!("THREAD_WAIT at {t} ns comes before the THREAD_CREATE of the thread it waits for; ignored")
            });
            continue;
        }
        if child == waiter {
            w.warnings
                .push(WarningKind::Other, || format!("THREAD_WAIT at {t} ns: a thread waits for itself; ignored"));
            continue;
        }
        let end = w.execs[child].end.unwrap_or(t);
        if end > t {
            w.warnings.push(WarningKind::Other, || {
                format!("THREAD_WAIT at {t} ns: the thread it waits for ends later ({end} ns)")
            });
        }
        let from = w.syncs[waiter]
            .iter()
            .find(|s| s.kind == SyncKind::ThreadJoin && s.enter <= t && t <= s.leave)
            .map_or(t, |s| s.enter);
        if it.joined[child] {
            w.warnings.push(WarningKind::Other, || format!("THREAD_WAIT at {t} ns: the thread was joined already"));
            continue;
        }
        it.joined[child] = true;
        it.push(waiter, from, Item::Join { begin: from, end: t, joined: child });
    }
    w.waits = waits;
}

/// A fork per team member at the master's fork; at the join, a join chain from the master's barrier.
fn teams(w: &mut Walk, it: &mut Items) {
    for k in 0..w.teams.len() {
        let tm = w.teams[k].clone();
        let mut members = tm.members.clone();
        members.sort_dyn_by_key(|&x| (w.execs[x].start, w.execs[x].loc, x));
        for &m in &members {
            it.push(tm.master, tm.fork_t, Item::Fork(m));
        }
        let Some(join_t) = tm.join_t else {
            if !members.is_empty() {
                w.warnings.push(WarningKind::UnmatchedEnd, || {
                    format!("THREAD_FORK at {} ns: never joined; its team members stay unjoined", tm.fork_t)
                });
            }
            continue;
        };
        let barrier = w.syncs[tm.master]
            .iter()
            .rev()
            .find(|s| s.kind == SyncKind::Barrier && s.enter >= tm.fork_t && s.enter <= join_t)
            .map(|s| s.enter);
        let from = barrier.or(tm.master_team_end).unwrap_or(join_t);
        let kids = members.iter().map(|&m| (m, w.execs[m].end.unwrap_or(from))).collect();
        it.join_chain(tm.master, from, kids, &mut w.warnings);
    }
}

/// Task create -> fork; the creator's first taskwait after the create joins it, else the first barrier of
/// the implicit thread at the root of its creation chain; else it stays unjoined.
fn tasks(w: &mut Walk, it: &mut Items) {
    // (joiner, sync index) -> children with their ends.
    let mut groups: std::collections::BTreeMap<(usize, usize), Vec<(usize, u64)>> = Default::default();
    for t in 0..w.tasks.len() {
        let task = &w.tasks[t];
        let Some(x) = task.exec else {
            let ct = task.create_t;
            w.warnings.push(WarningKind::UnmatchedFlow, || format!("task created at {ct} ns never runs"));
            continue;
        };
        it.push(task.creator, task.create_t, Item::Fork(x));
        let end = w.execs[x].end.unwrap_or(w.execs[x].start);
        let ct = task.create_t;
        let by_wait = first_sync(&w.syncs[task.creator], SyncKind::TaskWait, ct);
        let found = match by_wait {
            Some(s) => Some((task.creator, s)),
            None => {
                // Bounded: a crafted trace could make creators loop.
                let mut r = task.creator;
                for _ in 0..w.tasks.len() {
                    match (w.execs[r].role, w.execs[r].task) {
                        (Role::Task, Some(p)) => r = w.tasks[p].creator,
                        _ => break,
                    }
                }
                first_sync(&w.syncs[r], SyncKind::Barrier, ct).map(|s| (r, s))
            }
        };
        if let Some(key) = found {
            groups.entry(key).or_default().push((x, end));
        }
    }
    for ((joiner, s), kids) in groups {
        let from = w.syncs[joiner][s].enter;
        it.join_chain(joiner, from, kids, &mut w.warnings);
    }
}

/// The first of a thread's synchronization regions (in time order) of `kind` entered at or after `t`.
fn first_sync(syncs: &[super::walk::Sync], kind: SyncKind, t: u64) -> Option<usize> {
    let from = syncs.partition_point(|s| s.enter < t);
    syncs[from..].iter().position(|s| s.kind == kind).map(|p| p + from)
}
