//! From the neutral thread-event list to the [`ExecGraph`]: groups events by thread, checks each thread's
//! sequence (start, forks and joins, end), links forks to subthread starts and subthread ends to a-joins,
//! orders the nodes topologically (Kahn's algorithm; on a cycle, petgraph through `visit.rs` finds one, named
//! thread by thread with the events that link them) and computes run time. Linear in the events (plus one hash
//! map).
//! Must not guess: an event list that is not a fork/join program is a [`GraphError`] saying where.

use super::{critical, ExecGraph, Node, NodeIx, NodeKind, Thread, ThreadIx, NONE};
use thiserror::Error;
use weft_model::thread_events::{OriginKind, ThreadEventKind, ThreadEvents};

/// Why thread events do not make an execution graph. `at` is "line N" or "event N" of `file`.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum GraphError {
    #[error("{file}: no thread starts: an execution graph needs at least one thread")]
    Empty { file: String },
    #[error("{file}: {at}: thread {id} is named here but has no events of its own")]
    UnknownThread { file: String, at: String, id: u64 },
    #[error("{file}: {at}: thread {id} is forked a second time")]
    ForkedTwice { file: String, at: String, id: u64 },
    #[error("{file}: {at}: thread {id} is joined a second time")]
    JoinedTwice { file: String, at: String, id: u64 },
    #[error("{file}: {at}: thread {id} forks or joins itself")]
    SelfReference { file: String, at: String, id: u64 },
    #[error("{file}: {at}: thread {id}: {detail}")]
    Sequence { file: String, at: String, id: u64, detail: &'static str },
    /// `cycle`: the threads around the cycle and the events that link them, e.g. "thread 1 -> thread 2 ->
    /// thread 1 (line 5: thread 2 joins thread 1; line 4: thread 1 joins thread 2)"; `id`: its first thread.
    #[error("{file}: the forks and joins form a cycle (a thread waits for itself): {cycle}")]
    Cycle { file: String, id: u64, cycle: String },
}

fn at(ev: &ThreadEvents, origin: u32) -> String {
    match ev.origin_kind {
        OriginKind::Line => format!("line {origin}"),
        OriginKind::Event => format!("event {origin}"),
    }
}

/// Build the graph. The origin (y = 0) is the earliest event time, init included.
pub fn build(ev: &ThreadEvents) -> Result<ExecGraph, GraphError> {
    let file = || ev.source.clone();
    let origin_ns = ev.events.iter().map(|e| e.time_ns).min().unwrap_or(0);

    // Threads in order of first own event; events of each thread in source order (counting sort).
    // Thread ids are integers from one file: Fx (rustc-hash), several times cheaper than SipHash.
    let mut index: rustc_hash::FxHashMap<u64, ThreadIx> = Default::default();
    let mut ids: Vec<u64> = Vec::new();
    let mut of_event: Vec<ThreadIx> = vec![NONE; ev.events.len()];
    for (i, e) in ev.events.iter().enumerate() {
        if matches!(e.kind, ThreadEventKind::Init | ThreadEventKind::Exit) {
            continue;
        }
        let next = ids.len() as ThreadIx;
        let t = *index.entry(e.thread).or_insert(next);
        if t == next {
            ids.push(e.thread);
        }
        of_event[i] = t;
    }
    if ids.is_empty() {
        return Err(GraphError::Empty { file: file() });
    }
    let n_threads = ids.len();
    let mut ev_start = vec![0u32; n_threads + 1];
    for &t in of_event.iter().filter(|&&t| t != NONE) {
        ev_start[t as usize + 1] += 1;
    }
    for t in 0..n_threads {
        ev_start[t + 1] += ev_start[t];
    }
    let mut fill = ev_start.clone();
    let mut by_thread = vec![0u32; ev_start[n_threads] as usize];
    for (i, &t) in of_event.iter().enumerate() {
        if t != NONE {
            by_thread[fill[t as usize] as usize] = i as u32;
            fill[t as usize] += 1;
        }
    }

    // Each thread's chain. `other` is the subthread of a fork or the joined thread of a join node.
    let resolve = |id: u64, origin: u32| {
        index.get(&id).copied().ok_or_else(|| GraphError::UnknownThread { file: file(), at: at(ev, origin), id })
    };
    let mut threads: Vec<Thread> = Vec::with_capacity(n_threads);
    let mut nodes: Vec<Node> = Vec::with_capacity(by_thread.len());
    let mut other: Vec<(ThreadIx, u32)> = Vec::with_capacity(by_thread.len());
    for t in 0..n_threads {
        let list = &by_thread[ev_start[t] as usize..ev_start[t + 1] as usize];
        let id = ids[t];
        let seq =
            |origin: u32, detail: &'static str| GraphError::Sequence { file: file(), at: at(ev, origin), id, detail };
        let first = &ev.events[list[0] as usize];
        if first.kind != ThreadEventKind::Start {
            return Err(seq(first.origin, "the first event of a thread must be its start"));
        }
        let first_node = nodes.len() as NodeIx;
        let mut last_time = first.time_ns;
        let mut idle = 0u64;
        let mut ended = false;
        let mut i = 0;
        while i < list.len() {
            let e = &ev.events[list[i] as usize];
            if ended {
                return Err(seq(e.origin, "an event after the thread's end"));
            }
            if e.time_ns < last_time {
                return Err(seq(e.origin, "time goes backwards within the thread"));
            }
            last_time = e.time_ns;
            let time_ns = e.time_ns - origin_ns;
            let mut push = |kind, o: (ThreadIx, u32)| {
                nodes.push(Node { kind, thread: t as ThreadIx, time_ns, partner: NONE });
                other.push(o);
            };
            match e.kind {
                ThreadEventKind::Start if i == 0 => push(NodeKind::Start, (NONE, e.origin)),
                ThreadEventKind::Start => return Err(seq(e.origin, "a second start")),
                ThreadEventKind::End => {
                    push(NodeKind::End, (NONE, e.origin));
                    ended = true;
                }
                ThreadEventKind::Fork { child } => {
                    let c = resolve(child, e.origin)?;
                    if c as usize == t {
                        return Err(GraphError::SelfReference { file: file(), at: at(ev, e.origin), id });
                    }
                    push(NodeKind::Fork, (c, e.origin));
                }
                ThreadEventKind::JoinBegin { joined } => {
                    let j = resolve(joined, e.origin)?;
                    if j as usize == t {
                        return Err(GraphError::SelfReference { file: file(), at: at(ev, e.origin), id });
                    }
                    let Some(a) = list.get(i + 1).map(|&k| &ev.events[k as usize]) else {
                        return Err(seq(e.origin, "a b-join with no a-join after it"));
                    };
                    if a.kind != (ThreadEventKind::JoinEnd { joined }) {
                        return Err(seq(
                            a.origin,
                            "after a b-join the thread's next event must be the a-join of the same thread",
                        ));
                    }
                    if a.time_ns < e.time_ns {
                        return Err(seq(a.origin, "time goes backwards within the thread"));
                    }
                    if a.time_ns == e.time_ns {
                        push(NodeKind::Join, (j, a.origin));
                    } else {
                        push(NodeKind::JoinBegin, (j, e.origin));
                        nodes.push(Node {
                            kind: NodeKind::JoinEnd,
                            thread: t as ThreadIx,
                            time_ns: a.time_ns - origin_ns,
                            partner: NONE,
                        });
                        other.push((j, a.origin));
                        idle += a.time_ns - e.time_ns;
                    }
                    last_time = a.time_ns;
                    i += 1;
                }
                ThreadEventKind::JoinEnd { .. } => return Err(seq(e.origin, "an a-join with no b-join before it")),
                ThreadEventKind::Init | ThreadEventKind::Exit => {}
            }
            i += 1;
        }
        if !ended {
            let last = &ev.events[list[list.len() - 1] as usize];
            return Err(seq(last.origin, "the thread never ends (no end event)"));
        }
        let node_count = nodes.len() as u32 - first_node;
        let span = nodes[nodes.len() - 1].time_ns - nodes[first_node as usize].time_ns;
        threads.push(Thread {
            id,
            host: first.node,
            first_node,
            node_count,
            parent: NONE,
            fork_node: NONE,
            join_node: NONE,
            run_ns: span - idle,
        });
    }

    // Structural edges.
    for n in 0..nodes.len() {
        let (o, origin) = other[n];
        let kind = nodes[n].kind;
        if kind == NodeKind::Fork {
            let c = &mut threads[o as usize];
            if c.parent != NONE {
                return Err(GraphError::ForkedTwice { file: file(), at: at(ev, origin), id: c.id });
            }
            c.parent = nodes[n].thread;
            c.fork_node = n as NodeIx;
            let s = c.start();
            nodes[n].partner = s;
            nodes[s as usize].partner = n as NodeIx;
        } else if kind.ends_join() {
            let j = &mut threads[o as usize];
            if j.join_node != NONE {
                return Err(GraphError::JoinedTwice { file: file(), at: at(ev, origin), id: j.id });
            }
            j.join_node = n as NodeIx;
            let e = j.end();
            nodes[n].partner = e;
            nodes[e as usize].partner = n as NodeIx;
        }
    }

    // Children per thread in fork order (CSR).
    let mut child_start = vec![0u32; n_threads + 1];
    for th in &threads {
        if th.parent != NONE {
            child_start[th.parent as usize + 1] += 1;
        }
    }
    for t in 0..n_threads {
        child_start[t + 1] += child_start[t];
    }
    let mut fill = child_start.clone();
    let mut children = vec![0u32; child_start[n_threads] as usize];
    for n in &nodes {
        if n.kind == NodeKind::Fork {
            let p = n.thread as usize;
            children[fill[p] as usize] = nodes[n.partner as usize].thread;
            fill[p] += 1;
        }
    }

    let total_run_ns = threads.iter().map(|t| t.run_ns).sum();
    let mut g = ExecGraph {
        source: ev.source.clone(),
        threads,
        nodes,
        origin_ns,
        child_start,
        children,
        topo: Vec::new(),
        critical: Vec::new(),
        critical_via_partner: Vec::new(),
        critical_ns: 0,
        total_run_ns,
        labels: Vec::new(),
        short_labels: Vec::new(),
        runs_on: Vec::new(),
    };
    if !ev.hosts.is_empty() {
        // A host is a thread with a column of its own: never itself a guest.
        let guests: rustc_hash::FxHashSet<u64> = ev.hosts.iter().map(|&(t, _)| t).collect();
        g.runs_on = vec![NONE; g.threads.len()];
        for (guest, host) in &ev.hosts {
            if let (Some(&t), Some(&h)) = (index.get(guest), index.get(host)) {
                if t != h && !guests.contains(host) {
                    g.runs_on[t as usize] = h;
                }
            }
        }
    }
    g.topo = match topological_order(&g) {
        Some(order) => order,
        None => {
            // Only now petgraph, through the graph's visitor traits: one cycle, node by node.
            let c = crate::cycles::find_cycle(&g).unwrap_or_default();
            return Err(cycle_error(&g, &c, ev, &other));
        }
    };
    critical::mark(&mut g);
    Ok(g)
}

/// The cycle `c` (nodes in edge order) by the structural edges on it: the threads it goes through and the
/// events (`other[n].1`: a node's line or event number) that link them.
fn cycle_error(g: &ExecGraph, c: &[NodeIx], ev: &ThreadEvents, other: &[(ThreadIx, u32)]) -> GraphError {
    let id = |v: NodeIx| g.threads[g.nodes[v as usize].thread as usize].id;
    let mut threads: Vec<u64> = Vec::new();
    let mut links: Vec<String> = Vec::new();
    for (i, &u) in c.iter().enumerate() {
        let w = c[(i + 1) % c.len()];
        if g.nodes[u as usize].thread == g.nodes[w as usize].thread {
            continue;
        }
        if threads.is_empty() {
            threads.push(id(u));
        }
        threads.push(id(w));
        links.push(if g.nodes[u as usize].kind == NodeKind::Fork {
            format!("{}: thread {} forks thread {}", at(ev, other[u as usize].1), id(u), id(w))
        } else {
            format!("{}: thread {} joins thread {}", at(ev, other[w as usize].1), id(w), id(u))
        });
    }
    let path = threads.iter().map(|t| format!("thread {t}")).collect::<Vec<_>>().join(" -> ");
    GraphError::Cycle {
        file: ev.source.clone(),
        id: threads.first().copied().unwrap_or_else(|| c.first().map_or(0, |&v| id(v))),
        cycle: format!("{path} ({})", links.join("; ")),
    }
}

/// Kahn's algorithm over flow and structural edges; None on a cycle. Hand-written: petgraph's `toposort` on
/// the same graph (`visit.rs`) takes 3.5 to 5 times as long (BENCHMARKS.md, "petgraph where it serves").
pub fn topological_order(g: &ExecGraph) -> Option<Vec<NodeIx>> {
    let n = g.nodes.len();
    let mut indeg = vec![0u8; n];
    for v in 0..n as NodeIx {
        indeg[v as usize] = g.chain_pred(v).is_some() as u8 + g.partner_pred(v).is_some() as u8;
    }
    let mut order: Vec<NodeIx> = (0..n as NodeIx).filter(|&v| indeg[v as usize] == 0).collect();
    let mut head = 0;
    while head < order.len() {
        let v = order[head];
        head += 1;
        let node = g.nodes[v as usize];
        let th = &g.threads[node.thread as usize];
        let mut release = |w: NodeIx, order: &mut Vec<NodeIx>| {
            indeg[w as usize] -= 1;
            if indeg[w as usize] == 0 {
                order.push(w);
            }
        };
        if v < th.end() {
            release(v + 1, &mut order);
        }
        if matches!(node.kind, NodeKind::Fork | NodeKind::End) && node.partner != NONE {
            release(node.partner, &mut order);
        }
    }
    (order.len() == n).then_some(order)
}
