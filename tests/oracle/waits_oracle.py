#!/usr/bin/env python3
"""Oracle for `weft waits --json`: issue #53's wait-state definitions over the official OTF2 reader (PyPI `otf2`).

  waits_oracle.py ARCHIVE [--time]   print the wait report of ARCHIVE (its anchor `traces.otf2`, or the folder
                                     holding it) as `weft waits --json` prints it; with --time, the seconds the
                                     read and the analysis took on stderr
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

Patterns beyond MPI (omp_barrier, nccl_collective, gpu_synchronize, thread_wait) are not implemented here: they
print as zero, and the callers compare only the MPI patterns where an archive has any of those (`--covered`
prints the implemented keys). Root causes are not implemented: `root_causes` prints empty.
"""
import json
import os
import sys
import time

import otf2
from otf2.enums import GroupType

PATTERNS = ["late_sender", "late_receiver", "wait_at_barrier", "wait_at_nxn", "late_broadcast", "early_reduce",
            "omp_barrier", "nccl_collective", "gpu_synchronize", "thread_wait"]
COVERED = ["late_sender", "late_receiver", "wait_at_barrier", "wait_at_nxn", "late_broadcast", "early_reduce"]
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
    """One region instance on one location: its region's name and its enter and leave in ns."""
    __slots__ = ("location", "name", "enter", "leave")

    def __init__(self, location, name, enter):
        self.location, self.name, self.enter, self.leave = location, name, enter, None


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
                    stack.append(len(calls))
                    calls.append(Call(li, ev.region.name, t))
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


def waits(a):
    """Every wait as (pattern, location, call index, w)."""
    calls = a.calls
    out = []
    pairs = match_messages(a)

    # late_sender: per receiving call, the latest enter of its messages' send calls.
    latest = {}
    for i, j in pairs:
        s, r = a.sends[i], a.recvs[j]
        c = r[4]
        if c is None or s[4] is None:
            continue
        e = calls[s[4]].enter
        latest[c] = max(latest.get(c, e), e)
    for c, m in latest.items():
        call = calls[c]
        if completes_receives(mpi_call(call.name)):
            w = min(m, call.leave) - call.enter
            if w > 0:
                out.append(("late_sender", call.location, c, w))

    # late_receiver: per blocking send call, the latest enter of the calls that posted its receives.
    posted = {}
    for i, j in pairs:
        s, r = a.sends[i], a.recvs[j]
        c = s[4]
        if c is None or r[5] is None:
            continue
        e = calls[r[5]].enter
        posted[c] = max(posted.get(c, e), e)
    for c, rt in posted.items():
        call = calls[c]
        if is_blocking_send(mpi_call(call.name)):
            w = min(rt, call.leave) - call.enter
            if w > 0:
                out.append(("late_receiver", call.location, c, w))

    # Collectives: the k-th on a communicator at each location is one instance.
    seen, instances = {}, {}
    for loc, comm, root, c in a.parts:
        if c is None:
            continue
        if a.self_like.get(comm, False):
            key = (comm, loc, seen.get((loc, comm), 0))
        else:
            key = (comm, seen.get((loc, comm), 0))
        seen[(loc, comm)] = seen.get((loc, comm), 0) + 1
        instances.setdefault(key, []).append((loc, root, c))
    for members in instances.values():
        for loc, root, c in members:
            call = calls[c]
            pattern = collective_pattern(mpi_call(call.name))
            if pattern is None:
                continue
            enters = [(calls[mc].enter, ml) for ml, _, mc in members]
            w = 0
            if pattern in ("wait_at_barrier", "wait_at_nxn"):
                w = max(e for e, _ in enters) - call.enter
            elif pattern == "late_broadcast":
                if root is not None and root != loc:
                    root_enters = [e for e, ml in enters if ml == root]
                    if root_enters:
                        w = root_enters[0] - call.enter
            elif pattern == "early_reduce":
                if root == loc:
                    others = [e for e, ml in enters if ml != loc]
                    if others:
                        w = min(others) - call.enter
            if w > 0:
                out.append((pattern, loc, c, w))
    return out


def report(a):
    n = len(a.locations)
    pats = {p: {"total_ns": 0, "instances": 0, "per_location": [0] * n, "by_region": {}} for p in PATTERNS}
    total = 0
    for pattern, loc, c, w in waits(a):
        p = pats[pattern]
        p["total_ns"] += w
        p["instances"] += 1
        p["per_location"][loc] += w
        name = a.calls[c].name
        p["by_region"][name] = p["by_region"].get(name, 0) + w
        total += w
    for p in pats.values():
        p["by_region"] = [{"name": k, "ns": v} for k, v in sorted(p["by_region"].items(), key=lambda kv: (-kv[1], kv[0]))]
    return {"patterns": pats, "root_causes": [], "total_wait_ns": total}


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
    t0 = time.perf_counter()
    a = Archive(anchor_of(argv[1]))
    t1 = time.perf_counter()
    out = report(a)
    t2 = time.perf_counter()
    print(json.dumps(out, separators=(",", ":")))
    if "--time" in argv[2:]:
        sys.stderr.write("read %.3f s, waits %.3f s, total %.3f s\n" % (t1 - t0, t2 - t1, t2 - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
