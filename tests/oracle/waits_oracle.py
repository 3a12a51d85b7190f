#!/usr/bin/env python3
"""Oracle for `weft waits --json`: issue #53's wait-state definitions over the official OTF2 reader (PyPI `otf2`).

  waits_oracle.py ARCHIVE [--time]   print the wait report of ARCHIVE (its anchor `traces.otf2`, or the folder
                                     holding it) as `weft waits --json` prints it; with --time, the seconds
                                     (wall and CPU) the read and the analysis took, on stderr
  waits_oracle.py --locations ARCHIVE  the names ("location group / location") in per_location's order, as JSON
  waits_oracle.py --covered          the keys of what is implemented here (patterns, and "root_causes" if so)

Independent of weft: nothing here comes from weft's code. What it takes from the definitions (docs/diagnosis.md):

- Times are ns: ticks since the clock's global offset scaled by the timer resolution, truncated toward zero, as
  every reader of the archive converts them. Only differences of times are reported, so the origin does not matter.
- op(e) is exact here: the innermost region open on the event's location when the record is read, in file order
  (a LEAVE closes the innermost open region, whichever region it names).
- Messages are matched as MPI matches them: the k-th send of a channel (sender, receiver, communicator, tag) in
  the sender's program order with the k-th receive of the channel in the receiver's posting order (an MPI_Recv
  posts where it completes; an MPI_Irecv posts at its MpiIrecvRequest, completed later by request id); cancelled
  sends take no part. A communicator whose group is empty (or of type COMM_SELF) is self-like: rank 0 is the
  caller.
- Collectives: the k-th collective record (MpiCollectiveEnd) on a communicator at each location is one instance;
  the call is op(the record); only the blocking collectives the definitions name are counted, by the call's
  region name. On a self-like communicator every call is an instance of its own (no partner, no wait).
- A wait is one call instance's waiting part (w > 0): `instances` counts them, `per_location` sums them per
  location (in the archive's location definition order, which is weft's LocationId order), `by_region` per the
  waiting call's region name (ns descending, then name), `total_wait_ns` is the sum over all patterns.
- Each wait's cause is the partner whose arrival ends it (the latest send call, the latest posting call, the last
  to enter, the root, the first of the others; among partners arriving at once the lowest location), at the
  enter of its call; the root causes follow from it (`root_causes`, the rule of docs/diagnosis.md).

Patterns beyond MPI (omp_barrier, nccl_collective, gpu_synchronize, thread_wait) are not implemented here: they
print as zero, and the callers compare only what `--covered` lists.
"""
import bisect
import json
import os
import sys
import time

import otf2
from otf2.enums import GroupType

PATTERNS = ["late_sender", "late_receiver", "wait_at_barrier", "wait_at_nxn", "late_broadcast", "early_reduce",
            "omp_barrier", "nccl_collective", "gpu_synchronize", "thread_wait"]
COVERED = ["late_sender", "late_receiver", "wait_at_barrier", "wait_at_nxn", "late_broadcast", "early_reduce",
           "root_causes"]
UNDEFINED_RANK = 0xFFFFFFFF

# The calls the definitions name, by kind (names compared without a leading P and case-insensitively).
BLOCKING_RECEIVE = {"recv", "mrecv", "probe", "mprobe"}
WAIT = {"wait", "waitall", "waitany", "waitsome"}
BLOCKING_SEND = {"send", "ssend", "rsend"}
SEND_RECEIVE = {"sendrecv", "sendrecv_replace"}
BARRIER = {"barrier"}
NXN = {"allreduce", "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce_scatter",
       "reduce_scatter_block", "scan", "exscan"}
ONE_TO_N = {"bcast", "scatter", "scatterv"}
N_TO_ONE = {"reduce", "gather", "gatherv"}


def mpi_call(name):
    """The call's name without MPI_/PMPI_, lower case; None where the region is not an MPI call."""
    if name.startswith("P"):
        name = name[1:]
    for prefix in ("MPI_", "mpi_"):
        if name.startswith(prefix):
            return name[len(prefix):].lower()
    return None


def completes_receives(call):
    return call in BLOCKING_RECEIVE or call in WAIT or call in SEND_RECEIVE


def is_blocking_send(call):
    return call in BLOCKING_SEND or call in SEND_RECEIVE


def collective_pattern(call):
    if call in BARRIER:
        return "wait_at_barrier"
    if call in NXN:
        return "wait_at_nxn"
    if call in ONE_TO_N:
        return "late_broadcast"
    if call in N_TO_ONE:
        return "early_reduce"
    return None


class Call:
    """One region instance on one location: its region's name, its enter and leave in ns, and the call it is
    nested in (an index, or None at the top)."""
    __slots__ = ("location", "name", "enter", "leave", "parent")

    def __init__(self, location, name, enter, parent):
        self.location, self.name, self.enter, self.leave, self.parent = location, name, enter, None, parent


class Archive:
    """What the definitions need of an archive, read once with the official reader."""

    def __init__(self, anchor):
        self.calls = []
        # Sends: [sender, receiver, comm, tag, call, cancelled]; receives: [sender, receiver, comm, tag,
        # completing call, posting call, posting position on the receiver].
        self.sends, self.recvs = [], []
        # Collective parts in each location's order: (location, comm, root location or None, call).
        self.parts = []
        with otf2.reader.open(anchor) as trace:
            d = trace.definitions
            self.locations = list(d.locations)
            index = {loc._ref: i for i, loc in enumerate(self.locations)}
            res = trace.timer_resolution
            offset = d.clock_properties.global_offset

            def ns(ticks):
                dt = ticks - offset
                v = abs(dt) * 1_000_000_000 // res
                return v if dt >= 0 else -v

            self_like = {}
            resolved = {}

            def rank_location(comm, rank, me):
                """The location of `rank` in `comm`, or None where it names none."""
                key = comm._ref
                if key not in self_like:
                    g = comm.group
                    self_like[key] = g.group_type == GroupType.COMM_SELF or len(g.members) == 0
                if self_like[key]:
                    return me if rank == 0 else None
                k = (key, rank)
                if k not in resolved:
                    try:
                        resolved[k] = index[comm.location(rank)._ref]
                    except (IndexError, KeyError, AttributeError):
                        resolved[k] = None
                return resolved[k]

            n = len(self.locations)
            stacks = [[] for _ in range(n)]
            last_t = [None] * n
            isends = [{} for _ in range(n)]  # request -> send index, until completed or cancelled
            irecvs = [{} for _ in range(n)]  # request -> (posting call, posting position)
            posted = [0] * n
            calls, sends, recvs, parts = self.calls, self.sends, self.recvs, self.parts
            self.self_like = self_like
            for loc, ev in trace.events:
                li = index[loc._ref]
                t = ns(ev.time)
                last_t[li] = t
                kind = type(ev).__name__
                stack = stacks[li]
                if kind == "Enter":
                    calls.append(Call(li, ev.region.name, t, stack[-1] if stack else None))
                    stack.append(len(calls) - 1)
                elif kind == "Leave":
                    if stack:
                        calls[stack.pop()].leave = t
                elif kind in ("MpiSend", "MpiIsend"):
                    to = rank_location(ev.communicator, ev.receiver, li)
                    if to is None:
                        continue
                    if kind == "MpiIsend":
                        isends[li][ev.request_id] = len(sends)
                    sends.append([li, to, ev.communicator._ref, ev.msg_tag, stack[-1] if stack else None, False])
                elif kind == "MpiIsendComplete":
                    isends[li].pop(ev.request_id, None)
                elif kind == "MpiRequestCancelled":
                    s = isends[li].pop(ev.request_id, None)
                    if s is not None:
                        sends[s][5] = True
                    irecvs[li].pop(ev.request_id, None)
                elif kind == "MpiIrecvRequest":
                    irecvs[li][ev.request_id] = (stack[-1] if stack else None, posted[li])
                    posted[li] += 1
                elif kind in ("MpiRecv", "MpiIrecv"):
                    completing = stack[-1] if stack else None
                    if kind == "MpiIrecv" and ev.request_id in irecvs[li]:
                        posting, position = irecvs[li].pop(ev.request_id)
                    else:
                        posting, position = completing, posted[li]
                        posted[li] += 1
                    frm = rank_location(ev.communicator, ev.sender, li)
                    if frm is None:
                        continue
                    recvs.append([frm, li, ev.communicator._ref, ev.msg_tag, completing, posting, position])
                elif kind == "MpiCollectiveEnd":
                    root = None
                    if ev.root != UNDEFINED_RANK:
                        root = rank_location(ev.communicator, ev.root, li)
                    parts.append((li, ev.communicator._ref, root, stack[-1] if stack else None))
            # A region never left ends at its location's last event.
            for li, stack in enumerate(stacks):
                for c in stack:
                    calls[c].leave = last_t[li]


def match_messages(a):
    """(send index, receive index) pairs: FIFO per channel, sends in program order, receives in posting order."""
    queues = {}
    for i, s in enumerate(a.sends):
        if not s[5]:
            queues.setdefault((s[0], s[1], s[2], s[3]), []).append(i)
    by_channel = {}
    for j, r in enumerate(a.recvs):
        by_channel.setdefault((r[0], r[1], r[2], r[3]), []).append(j)
    pairs = []
    for ch, js in by_channel.items():
        js.sort(key=lambda j: a.recvs[j][6])
        for i, j in zip(queues.get(ch, []), js):
            pairs.append((i, j))
    return pairs


def collective_instances(a):
    """The blocking collectives' instances: lists of members (location, root location or None, call)."""
    seen, instances = {}, {}
    for loc, comm, root, c in a.parts:
        k = seen.get((loc, comm), 0)
        seen[(loc, comm)] = k + 1
        if c is None:
            continue
        key = (comm, loc, k) if a.self_like.get(comm, False) else (comm, k)
        instances.setdefault(key, []).append((loc, root, c))
    return list(instances.values())


def waits(a, pairs):
    """Every wait as (pattern, location, call index, w, causing location, time on it that ends the wait: the
    enter of the causing call). Where several partners arrive last at once, the lowest location is the cause."""
    calls = a.calls
    out = []

    def latest_partner(per_call):
        """Per call, the latest (enter, -location) of its partners' calls."""
        best = {}
        for c, e, loc in per_call:
            if c not in best or (e, -loc) > best[c]:
                best[c] = (e, -loc)
        return best

    # late_sender: per receiving call, the latest enter of its messages' send calls.
    arrivals = []
    for i, j in pairs:
        s, r = a.sends[i], a.recvs[j]
        if r[4] is not None and s[4] is not None:
            arrivals.append((r[4], calls[s[4]].enter, s[0]))
    for c, (m, neg) in latest_partner(arrivals).items():
        call = calls[c]
        if completes_receives(mpi_call(call.name)):
            w = min(m, call.leave) - call.enter
            if w > 0:
                out.append(("late_sender", call.location, c, w, -neg, m))

    # late_receiver: per blocking send call, the latest enter of the calls that posted its receives.
    postings = []
    for i, j in pairs:
        s, r = a.sends[i], a.recvs[j]
        if s[4] is not None and r[5] is not None:
            postings.append((s[4], calls[r[5]].enter, r[1]))
    for c, (rt, neg) in latest_partner(postings).items():
        call = calls[c]
        if is_blocking_send(mpi_call(call.name)):
            w = min(rt, call.leave) - call.enter
            if w > 0:
                out.append(("late_receiver", call.location, c, w, -neg, rt))

    # Collectives: the k-th on a communicator at each location is one instance.
    for members in collective_instances(a):
        for loc, root, c in members:
            call = calls[c]
            pattern = collective_pattern(mpi_call(call.name))
            if pattern is None:
                continue
            enters = sorted((calls[mc].enter, ml) for ml, _, mc in members)
            cause = None
            if pattern in ("wait_at_barrier", "wait_at_nxn"):
                last = max(e for e, _ in enters)
                cause = (last, min(ml for e, ml in enters if e == last))
            elif pattern == "late_broadcast":
                if root is not None and root != loc:
                    cause = next(((e, ml) for e, ml in enters if ml == root), None)
            elif pattern == "early_reduce":
                if root == loc:
                    cause = next(((e, ml) for e, ml in enters if ml != loc), None)
            if cause is not None and cause[0] - call.enter > 0:
                out.append((pattern, loc, c, cause[0] - call.enter, cause[1], cause[0]))
    return out


def root_causes(a, pairs, found):
    """The short-term delay cost of each wait (Boehme et al. 2010), as docs/diagnosis.md states it: since the
    pair last met (a matched message between them either way, at the leave of the call that sent or completed
    it on each side; or a blocking collective both were members of, at the leave of each one's call), the
    latest such point no later than the wait's start on the waiting location and the cause's time on the
    causing one (else 0 on both), the delay per region name is the exclusive time the causing location spent
    there more than the waiting one; the wait is shared among the regions in proportion to their delays.
    Summed per (pattern, waiting, causing, name), by ns descending then those."""
    calls = a.calls
    meet = {}  # (x, y) -> [(time on x, time on y)]

    def leave(c, t):
        return calls[c].leave if c is not None else t

    for i, j in pairs:
        s, r = a.sends[i], a.recvs[j]
        if s[0] == s[1]:
            continue
        ts, tr = leave(s[4], None), leave(r[4], None)
        if ts is None or tr is None:
            continue
        meet.setdefault((s[0], s[1]), []).append((ts, tr))
        meet.setdefault((s[1], s[0]), []).append((tr, ts))
    for members in collective_instances(a):
        ms = [(loc, calls[c].leave) for loc, _, c in members if collective_pattern(mpi_call(calls[c].name))]
        for x, tx in ms:
            for y, ty in ms:
                if x != y:
                    meet.setdefault((x, y), []).append((tx, ty))
    for pts in meet.values():
        pts.sort()
    by_location = {}
    for c, call in enumerate(calls):
        by_location.setdefault(call.location, []).append(c)
    enters = {loc: [calls[c].enter for c in cs] for loc, cs in by_location.items()}

    def exclusive(loc, lo, hi):
        """Per region name, the time `loc` spent in [lo, hi] with that region innermost: each call's overlap,
        less its children's (the calls open at lo, found up from the last to enter before it, then those
        entered inside)."""
        out = {}
        if hi <= lo or loc not in by_location:
            return out
        cs, es = by_location[loc], enters[loc]
        first = bisect.bisect_left(es, lo)
        touched = []
        c = cs[first - 1] if first > 0 else None
        while c is not None:
            if calls[c].leave > lo:
                touched.append(c)
            c = calls[c].parent
        for k in range(first, bisect.bisect_left(es, hi)):
            touched.append(cs[k])
        for c in touched:
            call = calls[c]
            d = min(call.leave, hi) - max(call.enter, lo)
            if d <= 0:
                continue
            out[call.name] = out.get(call.name, 0) + d
            if call.parent is not None:
                pn = calls[call.parent].name
                out[pn] = out.get(pn, 0) - d
        return out

    def last_met(w_loc, tw, c_loc, tc):
        """The latest (time on w, time on c) at which the pair met, no later than tw and tc; (0, 0) if never."""
        pts = meet.get((w_loc, c_loc), [])
        k = bisect.bisect_right(pts, (tw, float("inf")))
        while k > 0:
            k -= 1
            if pts[k][1] <= tc:
                return pts[k]
        return (0, 0)

    sums = {}
    for pattern, w_loc, c, w, c_loc, cause_ns in found:
        if c_loc == w_loc:
            continue
        tw = calls[c].enter
        aw, ac = last_met(w_loc, tw, c_loc, cause_ns)
        delay = exclusive(c_loc, ac, cause_ns)
        for name, d in exclusive(w_loc, aw, tw).items():
            delay[name] = delay.get(name, 0) - d
        delay = {name: d for name, d in delay.items() if d > 0}
        total = sum(delay.values())
        if total == 0:
            continue
        # The wait shared in proportion to the delays, rounded down; the rest to the largest delay (ties: the
        # first name), so the wait's costs sum to the wait.
        cost = {name: w * d // total for name, d in delay.items()}
        largest = min(delay, key=lambda name: (-delay[name], name))
        cost[largest] += w - sum(cost.values())
        for name, ns in cost.items():
            if ns > 0:
                key = (pattern, w_loc, c_loc, name)
                sums[key] = sums.get(key, 0) + ns
    rows = sorted(sums.items(), key=lambda kv: (-kv[1],) + kv[0])
    return [{"pattern": p, "waiting_location": wl, "causing_location": cl, "name": n, "ns": ns}
            for (p, wl, cl, n), ns in rows]


def report(a):
    n = len(a.locations)
    pats = {p: {"total_ns": 0, "instances": 0, "per_location": [0] * n, "by_region": {}} for p in PATTERNS}
    total = 0
    pairs = match_messages(a)
    found = waits(a, pairs)
    for pattern, loc, c, w, _, _ in found:
        p = pats[pattern]
        p["total_ns"] += w
        p["instances"] += 1
        p["per_location"][loc] += w
        name = a.calls[c].name
        p["by_region"][name] = p["by_region"].get(name, 0) + w
        total += w
    for p in pats.values():
        p["by_region"] = [{"name": k, "ns": v} for k, v in sorted(p["by_region"].items(), key=lambda kv: (-kv[1], kv[0]))]
    # Keys as serde writes weft's report: patterns by key (a BTreeMap), fields in declaration order.
    return {"patterns": dict(sorted(pats.items())), "root_causes": root_causes(a, pairs, found),
            "total_wait_ns": total}


def anchor_of(path):
    if os.path.isdir(path):
        return os.path.join(path, "traces.otf2")
    return path


def main(argv):
    if len(argv) >= 2 and argv[1] == "--covered":
        print(json.dumps(COVERED))
        return 0
    if len(argv) == 3 and argv[1] == "--locations":
        with otf2.reader.open(anchor_of(argv[2])) as trace:
            print(json.dumps(["%s / %s" % (l.group.name, l.name) for l in trace.definitions.locations]))
        return 0
    if len(argv) < 2 or argv[1].startswith("--"):
        sys.stderr.write(__doc__)
        return 2
    t0, c0 = time.perf_counter(), time.process_time()
    a = Archive(anchor_of(argv[1]))
    t1, c1 = time.perf_counter(), time.process_time()
    out = report(a)
    t2, c2 = time.perf_counter(), time.process_time()
    print(json.dumps(out, separators=(",", ":"), ensure_ascii=False))
    if "--time" in argv[2:]:
        sys.stderr.write("read %.3f s (cpu %.3f), waits %.3f s (cpu %.3f), total %.3f s (cpu %.3f)\n"
                         % (t1 - t0, c1 - c0, t2 - t1, c2 - c1, t2 - t0, c2 - c0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
